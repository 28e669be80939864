// What the v1.6 operator does with a RayJob that passed validation before the job runs, where it
// can still fail for good (the RayJob then never runs and holds its quota): the RayCluster it
// creates (rayjob_controller.go constructRayClusterForRayJob), which the apiserver admits
// through the RayCluster CRD and the RayCluster controller validates, and the submitter it
// builds (getSubmitterTemplate / getSubmitterContainer / configureSubmitterContainer in
// K8sJobMode and SidecarMode, the job submission request in HTTPMode). The controller's own
// functions are unexported; these mirror them line by line and call the exported code they
// call (common.GetSubmitterTemplate, common.BuildJobSubmitCommand, ...).
package main

import (
	"fmt"
	"maps"
	"strings"

	"github.com/go-logr/logr"
	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"
	"github.com/ray-project/kuberay/ray-operator/controllers/ray/common"
	"github.com/ray-project/kuberay/ray-operator/controllers/ray/utils"
	"github.com/ray-project/kuberay/ray-operator/controllers/ray/utils/dashboardclient"
	"github.com/ray-project/kuberay/ray-operator/pkg/features"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/component-base/featuregate"
)

func init() {
	jobs, err := loadCRD(rayJobCRD, "v1")
	if err != nil {
		fail("the RayJob CRD: %v", err)
	}
	clusters, err := loadCRD(rayClusterCRD, "v1")
	if err != nil {
		fail("the RayCluster CRD: %v", err)
	}
	apiserverAdmits = jobs.admit
	operatorRuns = func(job *rayv1.RayJob) error { return runOperator(job, clusters) }
	operatorGates = kuberayGates
}

// kuberayGates returns the gates of the operator's own table (pkg/features), which it logs at
// startup: the apiserver libraries linked here register theirs in the same gate set.
func kuberayGates() []string {
	var names []string
	features.LogFeatureGates(logr.New(gateSink{names: &names}))
	return names
}

// gateSink is a logr sink that keeps the gate names of LogFeatureGates' one Info call.
type gateSink struct{ names *[]string }

func (gateSink) Init(logr.RuntimeInfo)            {}
func (gateSink) Enabled(int) bool                 { return true }
func (gateSink) Error(error, string, ...any)      {}
func (s gateSink) WithValues(...any) logr.LogSink { return s }
func (s gateSink) WithName(string) logr.LogSink   { return s }
func (s gateSink) Info(_ int, _ string, kv ...any) {
	for i := 0; i+1 < len(kv); i += 2 {
		if m, ok := kv[i+1].(map[featuregate.Feature]bool); ok {
			for f := range m {
				*s.names = append(*s.names, string(f))
			}
		}
	}
}

func runOperator(job *rayv1.RayJob, clusters *crdSchema) error {
	var clusterSpec *rayv1.RayClusterSpec
	if len(job.Spec.ClusterSelector) != 0 {
		// The operator uses the existing cluster the selector names and creates none; that
		// cluster was validated when it was created. What the submitter takes from it (the
		// head's image) stands in here.
		clusterSpec = &rayv1.RayClusterSpec{HeadGroupSpec: rayv1.HeadGroupSpec{
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{
				{Name: "ray-head", Image: "rayproject/ray:2.46.0"}}}}}}
	} else {
		cluster, err := constructRayCluster(job)
		if err != nil {
			return err
		}
		if err := admitCluster(cluster, clusters); err != nil {
			return err
		}
		clusterSpec = &cluster.Spec
	}
	switch job.Spec.SubmissionMode {
	case rayv1.K8sJobMode:
		// getSubmitterTemplate: configureSubmitterContainer(&template.Spec.Containers[0], ...)
		// panics on a template without containers (the reconciler recovers and retries forever).
		template := common.GetSubmitterTemplate(&job.Spec, clusterSpec)
		if len(template.Spec.Containers) == 0 {
			return fmt.Errorf("submitter: submitterPodTemplate has no containers (the operator indexes containers[%d])",
				utils.RayContainerIndex)
		}
		return configureSubmitter(&template.Spec.Containers[utils.RayContainerIndex], job, rayv1.K8sJobMode)
	case rayv1.HTTPMode:
		if _, err := dashboardclient.ConvertRayJobToReq(job); err != nil {
			return fmt.Errorf("submission request: %w", err)
		}
	}
	return nil
}

// constructRayCluster mirrors constructRayClusterForRayJob (but the owner reference).
func constructRayCluster(job *rayv1.RayJob) (*rayv1.RayCluster, error) {
	labels := make(map[string]string, len(job.Labels))
	maps.Copy(labels, job.Labels)
	labels[utils.RayOriginatedFromCRNameLabelKey] = job.Name
	labels[utils.RayOriginatedFromCRDLabelKey] = utils.RayOriginatedFromCRDLabelValue(utils.RayJobCRD)
	labels[utils.RayJobSubmissionModeLabelKey] = string(job.Spec.SubmissionMode)
	annotations := make(map[string]string, len(job.Annotations))
	maps.Copy(annotations, job.Annotations)
	if job.Spec.SubmissionMode == rayv1.SidecarMode {
		annotations[utils.DisableProvisionedHeadRestartAnnotationKey] = "true"
	}
	cluster := &rayv1.RayCluster{
		TypeMeta: metav1.TypeMeta{APIVersion: "ray.io/v1", Kind: "RayCluster"},
		ObjectMeta: metav1.ObjectMeta{
			Labels: labels, Annotations: annotations, Namespace: job.Namespace,
			// initRayJobStatusIfNeed: utils.GenerateRayClusterName, the name plus 5 random characters.
			Name: job.Name + "-x2z4b",
		},
		Spec: *job.Spec.RayClusterSpec.DeepCopy(),
	}
	if job.Spec.SubmissionMode == rayv1.SidecarMode {
		sidecar := common.GetDefaultSubmitterContainer(&cluster.Spec)
		if err := configureSubmitter(&sidecar, job, rayv1.SidecarMode); err != nil {
			return nil, err
		}
		cluster.Spec.HeadGroupSpec.Template.Spec.Containers = append(
			cluster.Spec.HeadGroupSpec.Template.Spec.Containers, sidecar)
		cluster.Spec.HeadGroupSpec.Template.Spec.RestartPolicy = corev1.RestartPolicyNever
	}
	return cluster, nil
}

// configureSubmitter mirrors configureSubmitterContainer: the `ray job submit` command (its
// runtimeEnvYAML conversion and its metadata's Ray version check) and the env vars it adds.
func configureSubmitter(c *corev1.Container, job *rayv1.RayJob, mode rayv1.JobSubmissionMode) error {
	cmd, err := common.BuildJobSubmitCommand(job, mode)
	if err != nil {
		return fmt.Errorf("submitter: %w", err)
	}
	if len(c.Command) == 0 || mode == rayv1.SidecarMode {
		c.Command = utils.GetContainerCommand([]string{"e"})
		c.Args = []string{strings.Join(cmd, " ")}
	}
	c.Env = append(c.Env, corev1.EnvVar{Name: "PYTHONUNBUFFERED", Value: "1"},
		corev1.EnvVar{Name: utils.RAY_DASHBOARD_ADDRESS, Value: job.Status.DashboardURL},
		corev1.EnvVar{Name: utils.RAY_JOB_SUBMISSION_ID, Value: job.Status.JobId})
	return nil
}

// admitCluster sends the RayCluster through the apiserver (the RayCluster CRD) and then through
// what the RayCluster controller validates before it creates a Pod.
func admitCluster(cluster *rayv1.RayCluster, clusters *crdSchema) error {
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(cluster)
	if err != nil {
		return fmt.Errorf("the RayCluster: %w", err)
	}
	if _, refusal := clusters.admit(obj); refusal != nil {
		return fmt.Errorf("the apiserver refuses the RayCluster: %w", refusal)
	}
	var stored rayv1.RayCluster
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, &stored); err != nil {
		return fmt.Errorf("the RayCluster: %w", err)
	}
	if err := utils.ValidateRayClusterMetadata(stored.ObjectMeta); err != nil {
		return fmt.Errorf("the RayCluster: %w", err)
	}
	if err := utils.ValidateRayClusterSpec(&stored.Spec, stored.Annotations); err != nil {
		return fmt.Errorf("the RayCluster: %w", err)
	}
	if err := utils.ValidateRayClusterUpgradeOptions(&stored); err != nil {
		return fmt.Errorf("the RayCluster: %w", err)
	}
	return nil
}
