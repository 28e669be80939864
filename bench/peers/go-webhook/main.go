// Command go-webhook is the Go peer that bench/peer-bench.sh measures rayjob-guard against:
// a RayJob validating webhook on net/http + encoding/json, the stack that controller-runtime,
// Gatekeeper and Kyverno serve on. Standard library only.
package main

import (
	"crypto/tls"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// maxBodyBytes matches controller-runtime's cap (7 MiB); larger bodies get 413.
const maxBodyBytes = 7 << 20

func main() {
	certFile := flag.String("tls-cert", "", "PEM certificate chain")
	keyFile := flag.String("tls-key", "", "PEM private key")
	listen := flag.String("listen", "127.0.0.1:0", "address to serve HTTPS on")
	portFile := flag.String("port-file", "", "file that receives {\"https\":PORT}")
	flag.Parse()
	if *certFile == "" || *keyFile == "" {
		fmt.Fprintln(os.Stderr, "go-webhook: --tls-cert and --tls-key are required")
		os.Exit(2)
	}
	cert, err := tls.LoadX509KeyPair(*certFile, *keyFile)
	if err != nil {
		fmt.Fprintf(os.Stderr, "go-webhook: loading the key pair: %v\n", err)
		os.Exit(2)
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintf(os.Stderr, "go-webhook: listen %s: %v\n", *listen, err)
		os.Exit(2)
	}
	if *portFile != "" {
		port := ln.Addr().(*net.TCPAddr).Port
		if err := os.WriteFile(*portFile, []byte(fmt.Sprintf("{\"https\":%d}\n", port)), 0o644); err != nil {
			fmt.Fprintf(os.Stderr, "go-webhook: writing %s: %v\n", *portFile, err)
			os.Exit(2)
		}
	}

	mux := http.NewServeMux()
	mux.HandleFunc("/validate", handleValidate)
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") })

	srv := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 32 * time.Second, // controller-runtime's values
		IdleTimeout:       90 * time.Second,
		MaxHeaderBytes:    1 << 20,
		ErrorLog:          log.New(io.Discard, "", 0),
		TLSConfig: &tls.Config{
			Certificates: []tls.Certificate{cert},
			MinVersion:   tls.VersionTLS12,
			// No resumption, like rayjob-guard: the apiserver's webhook client never resumes, and
			// wrk would (it keeps the session across reconnects), which made the handshake row
			// compare resumed handshakes here with full ones there.
			SessionTicketsDisabled: true,
			CipherSuites: []uint16{
				tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
				tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
				tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384, tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
			},
			NextProtos: []string{"http/1.1"},
		},
		// An empty, non-nil map disables HTTP/2 so both servers speak the same protocol.
		TLSNextProto: map[string]func(*http.Server, *tls.Conn, http.Handler){},
	}
	go func() {
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
		<-sig
		_ = srv.Close()
	}()
	if err := srv.ServeTLS(ln, "", ""); err != nil && err != http.ErrServerClosed {
		fmt.Fprintf(os.Stderr, "go-webhook: %v\n", err)
		os.Exit(1)
	}
}

func handleValidate(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if r.Header.Get("Content-Type") != "application/json" {
		http.Error(w, "content type must be application/json", http.StatusUnsupportedMediaType)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes+1))
	if err != nil {
		http.Error(w, "reading the body failed", http.StatusBadRequest)
		return
	}
	if len(body) > maxBodyBytes {
		http.Error(w, "body too large", http.StatusRequestEntityTooLarge)
		return
	}
	out, status, err := review(body)
	if err != nil {
		http.Error(w, err.Error(), status)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(out)
}

// review decodes one AdmissionReview, evaluates it and returns the encoded response, or an
// error with the HTTP status to answer.
func review(body []byte) ([]byte, int, error) {
	var in admissionReview
	if err := json.Unmarshal(body, &in); err != nil {
		return nil, http.StatusBadRequest, fmt.Errorf("request body is not an AdmissionReview: %v", err)
	}
	if in.APIVersion != "admission.k8s.io/v1" || in.Kind != "AdmissionReview" {
		return nil, http.StatusBadRequest, fmt.Errorf("apiVersion/kind must be admission.k8s.io/v1 AdmissionReview")
	}
	if in.Request == nil || in.Request.UID == "" {
		return nil, http.StatusBadRequest, fmt.Errorf("request.uid is required")
	}
	req := in.Request
	resp := admissionResponse{UID: req.UID, Allowed: true}
	if req.Kind.Group == "ray.io" && req.Kind.Kind == "RayJob" && req.SubResource == "" &&
		(req.Operation == "CREATE" || req.Operation == "UPDATE") && len(req.Object) > 0 &&
		string(req.Object) != "null" {
		var job rayJob
		if err := json.Unmarshal(req.Object, &job); err != nil {
			return nil, http.StatusBadRequest, fmt.Errorf("request.object is not a RayJob: %v", err)
		}
		findings, warnings := evaluate(&job, req.Namespace)
		resp.Warnings = warnings
		if len(findings) > 0 {
			resp.Allowed = false
			resp.Status = denialStatus(findings)
		}
	}
	out, err := json.Marshal(admissionReviewOut{
		APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview", Response: resp})
	if err != nil {
		return nil, http.StatusInternalServerError, err
	}
	return out, http.StatusOK, nil
}

func denialStatus(findings []finding) *status {
	s := &status{Status: "Failure", Code: 422, Reason: "Invalid"}
	for i, f := range findings {
		if i > 0 {
			s.Message += "\n"
		}
		s.Message += fmt.Sprintf("[%s] %s: %s", f.Rule, f.Field, f.Message)
		s.Details.Causes = append(s.Details.Causes,
			cause{Field: f.Field, Reason: "FieldValueInvalid", Message: "[" + f.Rule + "] " + f.Message})
	}
	return s
}
