package main

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// The checks this peer performs: a reasonable subset of rayjob-guard's default policy, enough
// that each request costs what a real Go webhook's rule walk costs (every container visited,
// every quantity parsed exactly, the footprint summed, the deletion rules and images checked).

type finding struct {
	Rule    string
	Field   string
	Message string
}

const (
	maxSucceededTTL   = 600
	minFailedTTL      = 3600
	maxFailedTTL      = 86400
	maxActiveDeadline = 86400
	maxBackoffLimit   = 2
	boto3Min          = "1.35.0"
	botocoreMin       = "1.34.41"
)

// namespaceQuotas are the per-namespace hard limits every RayJob must fit in on its own, as in
// rayjob-guard's default policy; a namespace without an entry is refused.
var namespaceQuotas = map[string]map[string]string{
	"tenant-a": {"requests.cpu": "64", "limits.cpu": "64", "requests.memory": "256Gi",
		"limits.memory": "256Gi", "requests.nvidia.com/gpu": "8", "pods": "40"},
}

var stockImagePrefixes = []string{"rayproject/ray:", "rayproject/ray-ml:", "docker.io/rayproject/ray:",
	"docker.io/rayproject/ray-ml:", "rayproject/ray@", "docker.io/rayproject/ray@"}

var deniedImagePrefixes = []string{"rayproject/ray:2.41", "rayproject/ray:2.43"}

var submissionModes = map[string]bool{"": true, "K8sJobMode": true, "HTTPMode": true,
	"InteractiveMode": true, "SidecarMode": true}

// evaluate returns the denials and the warnings for job in namespace ns.
func evaluate(job *rayJob, ns string) ([]finding, []string) {
	var out []finding
	add := func(rule, field, format string, args ...interface{}) {
		out = append(out, finding{Rule: rule, Field: field, Message: fmt.Sprintf(format, args...)})
	}
	spec := &job.Spec

	if !submissionModes[spec.SubmissionMode] {
		add("submission-mode", "spec.submissionMode", "%q is not a KubeRay submission mode; use K8sJobMode, HTTPMode, InteractiveMode or SidecarMode", spec.SubmissionMode)
	}
	checkDeletion(spec, add)
	if spec.ActiveDeadlineSeconds == nil {
		add("active-deadline", "spec.activeDeadlineSeconds", "not set; set it to at most %d", maxActiveDeadline)
	} else if *spec.ActiveDeadlineSeconds <= 0 || *spec.ActiveDeadlineSeconds > maxActiveDeadline {
		add("active-deadline", "spec.activeDeadlineSeconds", "%d is outside 1..%d; lower it", *spec.ActiveDeadlineSeconds, maxActiveDeadline)
	}
	if spec.BackoffLimit != nil && (*spec.BackoffLimit < 0 || *spec.BackoffLimit > maxBackoffLimit) {
		add("backoff-limit", "spec.backoffLimit", "%d is outside 0..%d; lower it", *spec.BackoffLimit, maxBackoffLimit)
	}
	if spec.ClusterSelector != nil {
		add("cluster-selector", "spec.clusterSelector", "running on an existing RayCluster is not allowed; use rayClusterSpec")
	}
	if spec.RayClusterSpec == nil {
		if spec.ClusterSelector == nil {
			add("kuberay-schema", "spec.rayClusterSpec", "required; add rayClusterSpec")
		}
		return out, nil
	}

	totals := map[string]*big.Rat{}
	addPod := func(path string, t *podTemplate, count int64) {
		pods, ok := totals["pods"]
		if !ok {
			pods = new(big.Rat)
			totals["pods"] = pods
		}
		pods.Add(pods, new(big.Rat).SetInt64(count))
		for _, group := range []struct {
			name string
			list []container
		}{{"containers", t.Spec.Containers}, {"initContainers", t.Spec.InitContainers}} {
			for i := range group.list {
				c := &group.list[i]
				cpath := fmt.Sprintf("%s.spec.%s[%d]", path, group.name, i)
				checkImage(cpath, c.Image, spec.RuntimeEnvYAML, add)
				checkResources(cpath, c, count, group.name == "initContainers", totals, add)
			}
		}
	}
	rc := spec.RayClusterSpec
	if len(rc.HeadGroupSpec.Template.Spec.Containers) == 0 {
		add("kuberay-schema", "spec.rayClusterSpec.headGroupSpec.template.spec.containers", "empty; add the head container")
	}
	addPod("spec.rayClusterSpec.headGroupSpec.template", &rc.HeadGroupSpec.Template, 1)
	for i := range rc.WorkerGroupSpecs {
		wg := &rc.WorkerGroupSpecs[i]
		replicas := int64(0)
		if wg.Replicas != nil {
			replicas = *wg.Replicas
		}
		if wg.MaxReplicas != nil && replicas > *wg.MaxReplicas {
			replicas = *wg.MaxReplicas
		}
		if wg.MinReplicas != nil && replicas < *wg.MinReplicas {
			replicas = *wg.MinReplicas
		}
		hosts := int64(1)
		if wg.NumOfHosts != nil {
			hosts = *wg.NumOfHosts
		}
		addPod(fmt.Sprintf("spec.rayClusterSpec.workerGroupSpecs[%d].template", i), &wg.Template, replicas*hosts)
	}
	if spec.SubmitterPodTemplate != nil {
		addPod("spec.submitterPodTemplate", spec.SubmitterPodTemplate, 1)
	}
	quota, known := namespaceQuotas[ns]
	if !known {
		add("quota-fit", "metadata.namespace", "namespace %q has no quota entry; ask for one", ns)
	}
	for name, hard := range quota {
		limit, err := parseQuantity(hard)
		if err != nil {
			continue
		}
		if used, ok := totals[name]; ok && used.Cmp(limit) > 0 {
			add("quota-fit", "spec.rayClusterSpec", "%s totals %s, over the quota of namespace %s (%s); shrink the cluster", name, used.FloatString(3), ns, hard)
		}
	}
	return out, nil
}

func checkDeletion(spec *rayJobSpec, add func(rule, field, format string, args ...interface{})) {
	ds := spec.DeletionStrategy
	if ds == nil || len(ds.DeletionRules) == 0 {
		add("reap-self", "spec.deletionStrategy.deletionRules", "missing; add DeleteSelf rules for SUCCEEDED, FAILED and jobDeploymentStatus Failed")
		return
	}
	var succeeded, failed, deployFailed bool
	for i, r := range ds.DeletionRules {
		field := fmt.Sprintf("spec.deletionStrategy.deletionRules[%d]", i)
		ttl := int64(0)
		if r.Condition.TTLSeconds != nil {
			ttl = *r.Condition.TTLSeconds
		}
		if r.Policy != "DeleteSelf" {
			continue
		}
		switch {
		case r.Condition.JobStatus != nil && *r.Condition.JobStatus == "SUCCEEDED":
			succeeded = true
			if ttl > maxSucceededTTL {
				add("reap-ttl", field+".condition.ttlSeconds", "%d is over %d; lower it", ttl, maxSucceededTTL)
			}
		case r.Condition.JobStatus != nil && *r.Condition.JobStatus == "FAILED":
			failed = true
			if ttl < minFailedTTL || ttl > maxFailedTTL {
				add("reap-ttl", field+".condition.ttlSeconds", "%d is outside %d..%d", ttl, minFailedTTL, maxFailedTTL)
			}
		case r.Condition.JobDeploymentStatus != nil && *r.Condition.JobDeploymentStatus == "Failed":
			deployFailed = true
		}
	}
	if !succeeded || !failed || !deployFailed {
		add("reap-self", "spec.deletionStrategy.deletionRules", "needs DeleteSelf rules for SUCCEEDED, FAILED and jobDeploymentStatus Failed")
	}
}

func checkImage(path, image, runtimeEnv string, add func(rule, field, format string, args ...interface{})) {
	field := path + ".image"
	if image == "" {
		add("image-pinned", field, "empty; set a pinned image")
		return
	}
	digest := strings.Contains(image, "@sha256:")
	name := image
	if at := strings.IndexByte(name, '@'); at >= 0 {
		name = name[:at]
	}
	tag := ""
	if colon := strings.LastIndexByte(name, ':'); colon > strings.LastIndexByte(name, '/') {
		tag = name[colon+1:]
	}
	if !digest && (tag == "" || tag == "latest") {
		add("image-pinned", field, "%q is not pinned; use a version tag or a digest", image)
	}
	for _, p := range deniedImagePrefixes {
		if strings.HasPrefix(image, p) {
			add("image-contract", field, "%q ships botocore 1.29.x, which cannot reach EKS Pod Identity; use a newer image", image)
			return
		}
	}
	for _, p := range stockImagePrefixes {
		if strings.HasPrefix(image, p) {
			if !pipPins(runtimeEnv, "boto3", boto3Min) && !pipPins(runtimeEnv, "botocore", botocoreMin) {
				add("image-contract", field, "stock Ray image %q cannot use EKS Pod Identity; pin boto3>=%s in runtimeEnvYAML pip or use a tenant image", image, boto3Min)
			}
			break
		}
	}
}

// pipPins reports whether runtimeEnvYAML names pkg>=V (or ==V) with V >= min.
func pipPins(runtimeEnv, pkg, min string) bool {
	for _, op := range []string{">=", "=="} {
		idx := strings.Index(runtimeEnv, pkg+op)
		if idx < 0 {
			continue
		}
		rest := runtimeEnv[idx+len(pkg)+len(op):]
		end := strings.IndexAny(rest, "\"', \n]")
		if end >= 0 {
			rest = rest[:end]
		}
		if versionAtLeast(rest, min) {
			return true
		}
	}
	return false
}

func versionAtLeast(v, min string) bool {
	a, b := strings.Split(v, "."), strings.Split(min, ".")
	for i := 0; i < len(b); i++ {
		x := 0
		if i < len(a) {
			n, err := strconv.Atoi(a[i])
			if err != nil {
				return false
			}
			x = n
		}
		y, _ := strconv.Atoi(b[i])
		if x != y {
			return x > y
		}
	}
	return true
}

func checkResources(path string, c *container, count int64, isInit bool, totals map[string]*big.Rat,
	add func(rule, field, format string, args ...interface{})) {
	for _, kind := range []struct {
		name string
		list map[string]string
	}{{"requests", c.Resources.Requests}, {"limits", c.Resources.Limits}} {
		for _, res := range []string{"cpu", "memory"} {
			if _, ok := kind.list[res]; !ok {
				add("resources-declared", fmt.Sprintf("%s.resources.%s.%s", path, kind.name, res), "not set; declare it")
			}
		}
		for res, text := range kind.list {
			q, err := parseQuantity(text)
			field := fmt.Sprintf("%s.resources.%s.%s", path, kind.name, res)
			if err != nil {
				add("resources-declared", field, "%v; write a Kubernetes quantity", err)
				continue
			}
			if isInit {
				continue // init containers run before the others: they do not add to the sum
			}
			key := kind.name + "." + res
			sum, ok := totals[key]
			if !ok {
				sum = new(big.Rat)
				totals[key] = sum
			}
			sum.Add(sum, new(big.Rat).Mul(q, new(big.Rat).SetInt64(count)))
		}
	}
}
