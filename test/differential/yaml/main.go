// yaml-reference: reads YAML files the way kubectl reads `-f FILE` and prints, per file, one JSON
// line: {"name": N, "docs": [...]} with each document's JSON, or {"name": N, "error": E}; and
// "strict_error" when sigs.k8s.io/yaml's strict conversion (duplicate keys are errors) refuses a
// document that kubectl's non-strict one accepts.
//
// kubectl (k8s.io/cli-runtime's FileVisitor and StreamVisitor): the file goes through
// unicode.BOMOverride (a UTF-8 or UTF-16 byte-order mark at the start is stripped, UTF-16 is
// decoded), then k8s.io/apimachinery/pkg/util/yaml.NewYAMLOrJSONDecoder(r, 4096), whose YAML side
// splits the stream at `---` lines (NewYAMLReader) and converts each piece with
// sigs.k8s.io/yaml.Unmarshal; a document that is empty or null after trimming is skipped.
//
// A test-only program: test/differential/yaml/run.py builds and runs it.
//
//	usage: yaml-reference FILE...
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
	k8syaml "k8s.io/apimachinery/pkg/util/yaml"
	sigsyaml "sigs.k8s.io/yaml"
)

type result struct {
	Name        string            `json:"name"`
	Docs        []json.RawMessage `json:"docs,omitempty"`
	Error       string            `json:"error,omitempty"`
	StrictError string            `json:"strict_error,omitempty"`
}

func bomOverride(data []byte) io.Reader {
	return transform.NewReader(bytes.NewReader(data), unicode.BOMOverride(unicode.UTF8.NewDecoder()))
}

// kubectl returns the documents as StreamVisitor.Visit gets them.
func kubectl(data []byte) ([]json.RawMessage, error) {
	d := k8syaml.NewYAMLOrJSONDecoder(bomOverride(data), 4096)
	var docs []json.RawMessage
	for {
		var raw json.RawMessage
		if err := d.Decode(&raw); err != nil {
			if errors.Is(err, io.EOF) {
				return docs, nil
			}
			return nil, err
		}
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
			continue
		}
		docs = append(docs, raw)
	}
}

// strict converts every piece of the same split with YAMLToJSONStrict.
func strict(data []byte) error {
	b, err := io.ReadAll(bomOverride(data))
	if err != nil {
		return err
	}
	r := k8syaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(b)))
	for {
		piece, err := r.Read()
		if errors.Is(err, io.EOF) && len(piece) == 0 {
			return nil
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if _, err := sigsyaml.YAMLToJSONStrict(piece); err != nil {
			return err
		}
	}
}

func main() {
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	for _, name := range os.Args[1:] {
		data, err := os.ReadFile(name)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		res := result{Name: name}
		docs, err := kubectl(data)
		if err != nil {
			res.Error = err.Error()
		} else {
			res.Docs = docs
			if serr := strict(data); serr != nil {
				res.StrictError = serr.Error()
			}
		}
		if err := enc.Encode(res); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
}
