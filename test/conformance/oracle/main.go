// kuberay-oracle: the KubeRay operator's own verdict on RayJob manifests, for the conformance test.
// Test-only. It links the operator's validation package (controllers/ray/utils) and its feature
// gates (pkg/features) at the version its go.mod pins (one module per served version under
// test/conformance/oracle/<version>/), and runs on each RayJob exactly what the operator's
// reconciler runs before it creates anything: ValidateRayJobMetadata, then ValidateRayJobSpec.
// A version's module may add Go files (copied in next to this one) that set the two hooks below:
// what the apiserver does to the object before the operator sees it (apiserverAdmits: the CRD's
// pruning, defaults, schema and CEL rules) and what the operator does with a valid RayJob before
// the job runs (operatorRuns: the RayCluster it creates and that cluster's validation, the
// submitter it builds). v1.6.2 sets both; v1.4.0 and v1.5.0 set neither.
//
//	kuberay-oracle [--policy FILE] [--feature-gates A=true,B=false] [--list FILE] [FILE...]
//
// Feature gates come from kuberay.featureGates of the policy file that `rayjob-guard check`
// reads, then from --feature-gates; gates not named keep the version's compiled default.
// FILE is YAML or JSON, one or many documents; documents that are not ray.io RayJobs are skipped.
// --list names a file holding one manifest path per line (for batches of thousands).
//
// Output, one line per RayJob, tab-separated:
//
//	FILE  DOCUMENT  NAME  accepted            ""                    UNKNOWN
//	FILE  DOCUMENT  NAME  rejected            <the operator's error>  UNKNOWN
//	FILE  DOCUMENT  NAME  crd-refused         <the apiserver's error> UNKNOWN
//	FILE  DOCUMENT  NAME  undecodable         <the decoder's error>   ""
//
// UNKNOWN is empty, or the first field the operator's Go types at this version do not have (a
// strict decode's complaint), or with apiserverAdmits the first field the CRD's schema prunes:
// the apiserver prunes such a field, so the operator never sees it. crd-refused (only with
// apiserverAdmits): the CRD's schema or CEL rules refuse the object, so neither a webhook nor the
// operator ever sees it.
// DOCUMENT counts from 1 over every document of the file. Exit status 0 when every file was read,
// 2 on bad input (unreadable file, bad flag, YAML syntax error).
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"
	"github.com/ray-project/kuberay/ray-operator/controllers/ray/utils"
	_ "github.com/ray-project/kuberay/ray-operator/pkg/features" // registers the gates
	utiljson "k8s.io/apimachinery/pkg/util/json"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
	"sigs.k8s.io/yaml"
)

// Version-specific steps, set by the init() of a version's own Go files (nil: not run).
var (
	// apiserverAdmits applies to a decoded RayJob what the apiserver does before storing it, in
	// place, and returns the first field it pruned ("" when none), or the apiserver's refusal.
	apiserverAdmits func(obj map[string]any) (pruned string, refusal error)
	// operatorRuns does with a RayJob that passed validation what the operator does before the
	// job runs, and returns where that fails.
	operatorRuns func(job *rayv1.RayJob) error
	// operatorGates returns the gates KubeRay itself registers, when the linked Kubernetes
	// libraries register theirs in the same gate set (--print-gates then prints only KubeRay's).
	operatorGates func() []string
)

func main() {
	policy := flag.String("policy", "", "rayjob-guard policy YAML; its kuberay.featureGates are applied")
	gates := flag.String("feature-gates", "", "comma-separated Gate=bool, applied after --policy")
	list := flag.String("list", "", "file with one manifest path per line")
	showGates := flag.Bool("print-gates", false, "print every known gate and its value, then exit")
	flag.Parse()

	if *policy != "" {
		m, err := policyGates(*policy)
		if err != nil {
			fail("%s: %v", *policy, err)
		}
		if err := utilfeature.DefaultMutableFeatureGate.SetFromMap(m); err != nil {
			fail("%s: kuberay.featureGates: %v", *policy, err)
		}
	}
	if *gates != "" {
		if err := utilfeature.DefaultMutableFeatureGate.Set(*gates); err != nil {
			fail("--feature-gates: %v", err)
		}
	}
	if *showGates {
		var names []string
		if operatorGates != nil {
			names = operatorGates()
		} else {
			for f := range utilfeature.DefaultMutableFeatureGate.GetAll() {
				names = append(names, string(f))
			}
		}
		sort.Strings(names)
		for _, n := range names {
			fmt.Printf("%s=%v\n", n, utilfeature.DefaultFeatureGate.Enabled(featuregate.Feature(n)))
		}
		return
	}

	files, err := manifestFiles(flag.Args(), *list)
	if err != nil {
		fail("%v", err)
	}
	if !judgeFiles("kuberay-oracle", files, judgeFile) {
		os.Exit(2)
	}
}

func fail(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "kuberay-oracle: "+format+"\n", a...)
	os.Exit(2)
}

// policyGates reads kuberay.featureGates (a map of gate name to bool) from a policy file.
func policyGates(path string) (map[string]bool, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var p struct {
		Kuberay struct {
			FeatureGates map[string]bool `json:"featureGates"`
		} `json:"kuberay"`
	}
	if err := yaml.Unmarshal(b, &p); err != nil {
		return nil, err
	}
	return p.Kuberay.FeatureGates, nil
}

func judgeFile(out io.Writer, path string) error {
	return eachDocument(path, func(doc int, js []byte) error {
		var head struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
		}
		if err := json.Unmarshal(js, &head); err != nil {
			return fmt.Errorf("document %d: %v", doc, err)
		}
		if head.Kind != "RayJob" || !strings.HasPrefix(head.APIVersion, "ray.io/") {
			return nil
		}
		unknown := ""
		if apiserverAdmits != nil {
			// As the apiserver decodes a custom resource: integers as int64, other numbers float64.
			var obj map[string]any
			if err := utiljson.Unmarshal(js, &obj); err != nil {
				fmt.Fprintf(out, "%s\t%d\t%s\tundecodable\t%s\t\n", path, doc, nameOf(js), oneLine(err.Error()))
				return nil
			}
			pruned, refusal := apiserverAdmits(obj)
			if refusal != nil {
				fmt.Fprintf(out, "%s\t%d\t%s\tcrd-refused\t%s\t%s\n", path, doc, nameOf(js),
					oneLine(refusal.Error()), pruned)
				return nil
			}
			unknown = pruned
			var err error
			if js, err = json.Marshal(obj); err != nil {
				return fmt.Errorf("document %d: %v", doc, err)
			}
		} else {
			unknown = unknownField(js)
		}
		var job rayv1.RayJob
		if err := json.Unmarshal(js, &job); err != nil {
			fmt.Fprintf(out, "%s\t%d\t%s\tundecodable\t%s\t\n", path, doc, nameOf(js), oneLine(err.Error()))
			return nil
		}
		// The apiserver fills metadata.name from generateName before the operator sees it: the
		// prefix cut to 58 characters plus 5 random ones (names.SimpleNameGenerator).
		if job.Name == "" && job.GenerateName != "" {
			prefix := job.GenerateName
			if len(prefix) > 58 {
				prefix = prefix[:58]
			}
			job.Name = prefix + "x2z4b"
		}
		verdict := "accepted\t"
		if err := validate(&job); err != nil {
			verdict = "rejected\t" + oneLine(err.Error())
		}
		fmt.Fprintf(out, "%s\t%d\t%s\t%s\t%s\n", path, doc, job.Name, verdict, unknown)
		return nil
	})
}

// validate runs what the reconciler runs before it creates anything, in its order.
func validate(job *rayv1.RayJob) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("operator panicked: %v", r)
		}
	}()
	if err := utils.ValidateRayJobMetadata(job.ObjectMeta); err != nil {
		return err
	}
	if err := utils.ValidateRayJobSpec(job); err != nil {
		return err
	}
	if operatorRuns != nil {
		return operatorRuns(job)
	}
	return nil
}

// unknownField decodes strictly and returns the field the operator's types do not know, if any.
func unknownField(js []byte) string {
	d := json.NewDecoder(bytes.NewReader(js))
	d.DisallowUnknownFields()
	var job rayv1.RayJob
	if err := d.Decode(&job); err != nil && strings.Contains(err.Error(), "unknown field") {
		return oneLine(err.Error())
	}
	return ""
}
