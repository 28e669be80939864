// kueue-oracle: Kueue's own verdict on RayJobs, for the Kueue conformance test
// (test/conformance/kueue_conformance_test.py, ctest conformance.kueue). Test-only. It links
// Kueue at the version its go.mod pins (KUEUE_VERSION in test/peers/versions.env, checked by
// ../build-kueue-oracle.sh) and runs, on each RayJob, what a cluster runs between the request and
// a queued Workload:
//
//  1. the apiserver's handling of the RayJob CRD of the ray-operator module Kueue requires
//     (pruning, defaults such as submissionMode: K8sJobMode, schema, CEL; apiserver.go is the
//     KubeRay v1.6.2 oracle's, copied in by the build): an object it refuses reaches no webhook;
//  2. Kueue's validating webhook for RayJobs (pkg/controller/jobs/rayjob, type RayJobWebhook):
//     ValidateCreate on a CREATE, ValidateUpdate(old, new) on an UPDATE, with the panic recovery
//     controller-runtime's webhook server applies (a panic is a refusal, "panic: ... [recovered]");
//  3. on a request it admits, when Kueue manages the (new) RayJob (the queue-name label, or
//     --manage-jobs-without-queue-name; not a clusterSelector-only RayJob, which Kueue skips),
//     the Workload Kueue's reconciler builds for it (jobframework.ConstructWorkload over the
//     RayJob's own PodSets: the head, one per worker group, the submitter in K8sJobMode; an
//     UPDATE that changes them makes Kueue replace the Workload with one built the same way),
//     then the apiserver's handling of Kueue's Workload CRD (config/components/crd/bases, copied
//     in by the build: at most 18 PodSets, unique PodSet names matching a DNS-1123 label, counts
//     not negative, ...) and Kueue's Workload webhook (Default, then ValidateCreate). Kueue's
//     RayJob webhook counts only the head and the worker groups against 18 PodSets and checks no
//     PodSet name but "head", so a RayJob can pass step 2 and still never get a Workload: it
//     then stays suspended, holding its object-count quota. The priority a priority-class label
//     names is not looked up (the oracle has no cluster; a WorkloadPriorityClass that does not
//     exist also stops the Workload).
//
// The webhook is a zero-value RayJobWebhook with its unexported fields set (reflect + unsafe,
// setField below; this program only reads Kueue, never ships): client is controller-runtime's fake
// client over an empty cluster (Kueue reads it only for an elastic RayJob's RayCluster, named in
// status, which no request here carries: status is dropped as the apiserver drops it on a create);
// queues is a real queue manager (qcache) with no LocalQueue, because ValidateUpdate calls
// queues.DefaultLocalQueueExist when the queue-name label is removed, which panics on a nil
// manager; manageJobsWithoutQueueName is the flag. With no LocalQueue, "queue-name must not be
// empty in namespace with default queue" never fires: that refusal depends on the cluster.
//
// Feature gates keep Kueue v0.19's defaults, as its manager runs without --feature-gates; the
// ones these paths read: ElasticJobsViaWorkloadSlices (on: the elastic-job annotation allows
// in-tree autoscaling), TopologyAwareScheduling (on: validateCreate builds the RayJob's PodSets,
// where a K8sJobMode RayJob without containers in its head panics, managed or not),
// ValidateRayAndSparkJobUpdates (on: an UPDATE removing the queue-name label is validated),
// WorkloadIdentifierAnnotations and AdmissionGatedBy (on); for the Workload, PartialAdmission,
// WorkloadValidateResourcesAreNonNegative, WorkloadValidationForPodSetMetadata and
// TASValidateWorkloadSliceSize (on). --feature-gates A=true,B=false overrides them;
// --print-gates prints them.
//
//	kueue-oracle [--manage-jobs-without-queue-name] [--feature-gates A=true,...] [--list FILE] [FILE...]
//
// FILE is YAML or JSON, one or many documents. A ray.io RayJob document is judged as a CREATE.
// An admission.k8s.io/v1 AdmissionReview document whose request.object is a RayJob is judged as
// its request.operation: CREATE (request.object), or UPDATE (request.oldObject, the stored
// object, then request.object): this is how UPDATE pairs are given, in the same form
// `rayjob-guard review` reads. Other documents are skipped. --list names a file holding one
// manifest path per line.
//
// Output, one line per RayJob, tab-separated:
//
//	FILE  DOCUMENT  NAME  OPERATION  VERDICT  ERRORS  WORKLOAD
//
// VERDICT is accepted, rejected (by Kueue's webhook), crd-refused (by the apiserver, before any
// webhook; for an UPDATE also when the old object is one the CRD refuses) or undecodable.
// ERRORS is a JSON array of {"field","type","detail"}: Kueue's field errors (field paths as
// Kueue writes them, e.g. metadata.labels[kueue.x-k8s.io/queue-name]), or one entry with an
// empty field for an error without one (a panic, the CRD's or the decoder's message).
// WORKLOAD is empty unless step 3 ran, else a JSON object {"podSets":[names...],"errors":[...]}:
// the PodSets Kueue built (their count is the real PodSet count) and why the Workload cannot be
// created ([] when it can), errors on Workload fields (spec.podSets, spec.podSets[3].name, ...).
// DOCUMENT counts from 1 over every document of the file. Exit status 0 when every file was read,
// 2 on bad input (unreadable file, bad flag, YAML syntax error).
package main

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"unsafe"

	"github.com/go-logr/logr"
	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	qcache "sigs.k8s.io/kueue/pkg/cache/queue"
	"sigs.k8s.io/kueue/pkg/controller/jobframework"
	"sigs.k8s.io/kueue/pkg/controller/jobs/rayjob"
	"sigs.k8s.io/kueue/pkg/features"
	"sigs.k8s.io/kueue/pkg/webhooks"
)

//go:embed crd/kueue.x-k8s.io_workloads.yaml
var workloadCRD []byte

// The gates the header names, printed by --print-gates.
var readGates = []featuregate.Feature{
	features.ElasticJobsViaWorkloadSlices, features.TopologyAwareScheduling,
	features.ValidateRayAndSparkJobUpdates, features.WorkloadIdentifierAnnotations,
	features.AdmissionGatedBy, features.PartialAdmission,
	features.WorkloadValidateResourcesAreNonNegative, features.WorkloadValidationForPodSetMetadata,
	features.TASValidateWorkloadSliceSize,
}

// fieldError is one entry of the ERRORS column.
type fieldError struct {
	Field  string `json:"field"`
	Type   string `json:"type"`
	Detail string `json:"detail"`
}

type oracle struct {
	webhook   *rayjob.RayJobWebhook
	client    client.Client
	manageAll bool
	jobs      *crdSchema // the RayJob CRD (ray-operator, the version Kueue requires)
	workloads *crdSchema // Kueue's Workload CRD, v1beta2
}

func main() {
	manageAll := flag.Bool("manage-jobs-without-queue-name", false,
		"Kueue runs with manageJobsWithoutQueueName: every RayJob is Kueue's")
	gates := flag.String("feature-gates", "", "comma-separated Gate=bool for Kueue's gates")
	list := flag.String("list", "", "file with one manifest path per line")
	showGates := flag.Bool("print-gates", false, "print the gates this oracle's paths read, then exit")
	flag.Parse()
	ctrl.SetLogger(logr.Discard())

	if *gates != "" {
		if err := utilfeature.DefaultMutableFeatureGate.Set(*gates); err != nil {
			fail("--feature-gates: %v", err)
		}
	}
	if *showGates {
		for _, g := range readGates {
			fmt.Printf("%s=%v\n", g, utilfeature.DefaultFeatureGate.Enabled(g))
		}
		return
	}
	o, err := newOracle(*manageAll)
	if err != nil {
		fail("%v", err)
	}

	files, err := manifestFiles(flag.Args(), *list)
	if err != nil {
		fail("%v", err)
	}
	if !judgeFiles("kueue-oracle", files, o.judgeFile) {
		os.Exit(2)
	}
}

func fail(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "kueue-oracle: "+format+"\n", a...)
	os.Exit(2)
}

func newOracle(manageAll bool) (*oracle, error) {
	jobs, err := loadCRD(rayJobCRD, "v1")
	if err != nil {
		return nil, fmt.Errorf("the RayJob CRD: %v", err)
	}
	workloads, err := loadCRD(workloadCRD, "v1beta2")
	if err != nil {
		return nil, fmt.Errorf("the Workload CRD: %v", err)
	}
	scheme := runtime.NewScheme()
	if err := rayv1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	if err := kueue.AddToScheme(scheme); err != nil {
		return nil, err
	}
	c := fake.NewClientBuilder().WithScheme(scheme).Build()
	w := &rayjob.RayJobWebhook{}
	setField(w, "client", c)
	setField(w, "queues", qcache.NewManagerForUnitTests(c, nil))
	setField(w, "manageJobsWithoutQueueName", manageAll)
	return &oracle{webhook: w, client: c, manageAll: manageAll, jobs: jobs, workloads: workloads}, nil
}

// setField sets the unexported field `name` of *w, as SetupRayJobWebhook does from the manager's
// options: Kueue has no exported constructor that takes no manager.
func setField(w *rayjob.RayJobWebhook, name string, value any) {
	f := reflect.ValueOf(w).Elem().FieldByName(name)
	if !f.IsValid() {
		fail("RayJobWebhook has no field %q at this Kueue version", name)
	}
	reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Set(reflect.ValueOf(value))
}

func (o *oracle) judgeFile(out io.Writer, path string) error {
	return eachDocument(path, func(doc int, js []byte) error {
		var head struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Request    struct {
				Operation string          `json:"operation"`
				Object    json.RawMessage `json:"object"`
				OldObject json.RawMessage `json:"oldObject"`
			} `json:"request"`
		}
		if err := json.Unmarshal(js, &head); err != nil {
			return fmt.Errorf("document %d: %v", doc, err)
		}
		switch {
		case head.Kind == "RayJob" && strings.HasPrefix(head.APIVersion, "ray.io/"):
			o.judge(out, path, doc, "CREATE", nil, js)
		case head.Kind == "AdmissionReview" && head.APIVersion == "admission.k8s.io/v1":
			if !isRayJob(head.Request.Object) {
				return nil
			}
			switch head.Request.Operation {
			case "CREATE":
				o.judge(out, path, doc, "CREATE", nil, head.Request.Object)
			case "UPDATE":
				if !isRayJob(head.Request.OldObject) {
					return fmt.Errorf("document %d: an UPDATE without a RayJob oldObject", doc)
				}
				o.judge(out, path, doc, "UPDATE", head.Request.OldObject, head.Request.Object)
			}
		}
		return nil
	})
}

func isRayJob(js []byte) bool {
	var h struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	return len(js) > 0 && json.Unmarshal(js, &h) == nil && h.Kind == "RayJob" &&
		strings.HasPrefix(h.APIVersion, "ray.io/")
}

// judge writes the line of one RayJob: old is nil on a CREATE.
func (o *oracle) judge(out io.Writer, path string, doc int, op string, old, js []byte) {
	line := func(name, verdict string, errs []fieldError, workload string) {
		e, _ := json.Marshal(errs)
		if errs == nil {
			e = []byte("[]")
		}
		fmt.Fprintf(out, "%s\t%d\t%s\t%s\t%s\t%s\t%s\n",
			path, doc, oneLine(name), op, verdict, e, workload)
	}
	name := nameOf(js)
	var oldJob *rayv1.RayJob
	if old != nil {
		j, verdict, msg := o.admitRayJob(old)
		if j == nil {
			line(name, verdict, []fieldError{{Detail: "the old object: " + msg}}, "")
			return
		}
		oldJob = j
	}
	job, verdict, msg := o.admitRayJob(js)
	if job == nil {
		line(name, verdict, []fieldError{{Detail: msg}}, "")
		return
	}
	if errs := o.validate(oldJob, job); len(errs) > 0 {
		line(job.Name, "rejected", errs, "")
		return
	}
	workload := ""
	if o.managed(job) {
		workload = o.workload(job)
	}
	line(job.Name, "accepted", nil, workload)
}

// admitRayJob does what the apiserver does to a RayJob before any webhook sees it; nil, the
// verdict and the message when it refuses or cannot decode it.
func (o *oracle) admitRayJob(js []byte) (*rayv1.RayJob, string, string) {
	// As the apiserver decodes a custom resource: integers as int64, other numbers float64.
	var obj map[string]any
	if err := utiljson.Unmarshal(js, &obj); err != nil {
		return nil, "undecodable", err.Error()
	}
	delete(obj, "status") // the status subresource: a create or update of the object ignores it
	if _, refusal := o.jobs.admit(obj); refusal != nil {
		return nil, "crd-refused", refusal.Error()
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, "undecodable", err.Error()
	}
	var job rayv1.RayJob
	if err := json.Unmarshal(b, &job); err != nil {
		return nil, "undecodable", err.Error()
	}
	// The apiserver fills metadata.name from generateName (the prefix cut to 58 characters and 5
	// random ones), the namespace from the request, the uid; fixed here, so output is stable.
	if job.Name == "" && job.GenerateName != "" {
		prefix := job.GenerateName
		if len(prefix) > 58 {
			prefix = prefix[:58]
		}
		job.Name = prefix + "x2z4b"
	}
	if job.Namespace == "" {
		job.Namespace = "tenant-a"
	}
	job.UID = types.UID("00000000-0000-4000-8000-000000000001")
	return &job, "", ""
}

// validate runs Kueue's RayJob webhook as controller-runtime's webhook server does: a panic in
// it is recovered into a refusal.
func (o *oracle) validate(old, job *rayv1.RayJob) (errs []fieldError) {
	defer func() {
		if r := recover(); r != nil {
			errs = []fieldError{{Detail: fmt.Sprintf("panic: %v [recovered]", r)}}
		}
	}()
	ctx := context.Background()
	var err error
	if old == nil {
		_, err = o.webhook.ValidateCreate(ctx, job)
	} else {
		_, err = o.webhook.ValidateUpdate(ctx, old, job)
	}
	return fieldErrors(err)
}

// managed: Kueue's reconciler builds a Workload for this RayJob.
func (o *oracle) managed(job *rayv1.RayJob) bool {
	kj := (*rayjob.RayJob)(job)
	return (o.manageAll || jobframework.QueueName(kj) != "") && !kj.Skip(context.Background())
}

// workload builds the Workload Kueue's reconciler creates for job and returns the WORKLOAD
// column: its PodSets and why the apiserver or Kueue's Workload webhook refuse it.
func (o *oracle) workload(job *rayv1.RayJob) (column string) {
	type result struct {
		PodSets []string     `json:"podSets"`
		Errors  []fieldError `json:"errors"`
	}
	res := result{PodSets: []string{}, Errors: []fieldError{}}
	defer func() {
		if r := recover(); r != nil {
			res.Errors = []fieldError{{Detail: fmt.Sprintf("panic: %v", r)}}
		}
		b, _ := json.Marshal(res)
		column = string(b)
	}()
	ctx := context.Background()
	kj := (*rayjob.RayJob)(job.DeepCopy())
	wl, err := jobframework.ConstructWorkload(ctx, o.client, kj, nil, nil)
	if err != nil {
		res.Errors = append(res.Errors, fieldError{Detail: err.Error()})
		return
	}
	for _, ps := range wl.Spec.PodSets {
		res.PodSets = append(res.PodSets, string(ps.Name))
	}
	wl.APIVersion, wl.Kind = kueue.SchemeGroupVersion.String(), "Workload"
	// The Workload's mutating webhook, then the apiserver's CRD handling, then its validating one.
	wh := &webhooks.WorkloadWebhook{}
	if err := wh.Default(ctx, wl); err != nil {
		res.Errors = append(res.Errors, fieldError{Detail: err.Error()})
		return
	}
	b, err := json.Marshal(wl)
	if err != nil {
		res.Errors = append(res.Errors, fieldError{Detail: err.Error()})
		return
	}
	var obj map[string]any
	if err := utiljson.Unmarshal(b, &obj); err != nil {
		res.Errors = append(res.Errors, fieldError{Detail: err.Error()})
		return
	}
	if _, refusal := o.workloads.admit(obj); refusal != nil {
		res.Errors = append(res.Errors, fieldErrors(refusal)...)
		return
	}
	if b, err = json.Marshal(obj); err == nil {
		var defaulted kueue.Workload
		if err = json.Unmarshal(b, &defaulted); err == nil {
			wl = &defaulted
		}
	}
	if err != nil {
		res.Errors = append(res.Errors, fieldError{Detail: err.Error()})
		return
	}
	if _, err := wh.ValidateCreate(ctx, wl); err != nil {
		res.Errors = append(res.Errors, fieldErrors(err)...)
	}
	return
}

// fieldErrors flattens Kueue's error (a field.ErrorList aggregate, or a plain error) into the
// ERRORS entries, in Kueue's order.
func fieldErrors(err error) []fieldError {
	if err == nil {
		return nil
	}
	var out []fieldError
	var walk func(error)
	walk = func(e error) {
		var agg utilerrors.Aggregate
		var fe *field.Error
		switch {
		case errors.As(e, &agg):
			for _, x := range agg.Errors() {
				walk(x)
			}
		case errors.As(e, &fe):
			out = append(out, fieldError{Field: fe.Field, Type: string(fe.Type),
				Detail: oneLine(fe.ErrorBody())})
		default:
			out = append(out, fieldError{Detail: oneLine(e.Error())})
		}
	}
	walk(err)
	return out
}
