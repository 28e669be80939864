package main

import "encoding/json"

// The AdmissionReview and RayJob shapes this peer reads, decoded into typed structs as
// controller-runtime does (no generic maps).

type admissionReview struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Request    *admissionRequest `json:"request"`
}

type groupVersionKind struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

type admissionRequest struct {
	UID         string           `json:"uid"`
	Kind        groupVersionKind `json:"kind"`
	SubResource string           `json:"subResource"`
	Name        string           `json:"name"`
	Namespace   string           `json:"namespace"`
	Operation   string           `json:"operation"`
	UserInfo    json.RawMessage  `json:"userInfo"`
	Object      json.RawMessage  `json:"object"`
	OldObject   json.RawMessage  `json:"oldObject"`
	DryRun      *bool            `json:"dryRun"`
}

type admissionReviewOut struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Response   admissionResponse `json:"response"`
}

type admissionResponse struct {
	UID      string   `json:"uid"`
	Allowed  bool     `json:"allowed"`
	Status   *status  `json:"status,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
}

type status struct {
	Status  string  `json:"status"`
	Code    int     `json:"code"`
	Reason  string  `json:"reason"`
	Message string  `json:"message"`
	Details details `json:"details"`
}

type details struct {
	Causes []cause `json:"causes"`
}

type cause struct {
	Field   string `json:"field"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

type objectMeta struct {
	Name        string            `json:"name"`
	Namespace   string            `json:"namespace"`
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
}

type resources struct {
	Requests map[string]string `json:"requests"`
	Limits   map[string]string `json:"limits"`
}

type container struct {
	Name      string    `json:"name"`
	Image     string    `json:"image"`
	Resources resources `json:"resources"`
}

type podSpec struct {
	Containers     []container `json:"containers"`
	InitContainers []container `json:"initContainers"`
}

type podTemplate struct {
	Spec podSpec `json:"spec"`
}

type headGroupSpec struct {
	Template podTemplate `json:"template"`
}

type workerGroupSpec struct {
	GroupName   string      `json:"groupName"`
	Replicas    *int64      `json:"replicas"`
	MinReplicas *int64      `json:"minReplicas"`
	MaxReplicas *int64      `json:"maxReplicas"`
	NumOfHosts  *int64      `json:"numOfHosts"`
	Template    podTemplate `json:"template"`
}

type rayClusterSpec struct {
	HeadGroupSpec    headGroupSpec     `json:"headGroupSpec"`
	WorkerGroupSpecs []workerGroupSpec `json:"workerGroupSpecs"`
}

type deletionCondition struct {
	JobStatus           *string `json:"jobStatus"`
	JobDeploymentStatus *string `json:"jobDeploymentStatus"`
	TTLSeconds          *int64  `json:"ttlSeconds"`
}

type deletionRule struct {
	Policy    string            `json:"policy"`
	Condition deletionCondition `json:"condition"`
}

type deletionStrategy struct {
	DeletionRules []deletionRule `json:"deletionRules"`
}

type rayJobSpec struct {
	Entrypoint               string            `json:"entrypoint"`
	RuntimeEnvYAML           string            `json:"runtimeEnvYAML"`
	ShutdownAfterJobFinishes *bool             `json:"shutdownAfterJobFinishes"`
	TTLSecondsAfterFinished  *int64            `json:"ttlSecondsAfterFinished"`
	ActiveDeadlineSeconds    *int64            `json:"activeDeadlineSeconds"`
	BackoffLimit             *int64            `json:"backoffLimit"`
	SubmissionMode           string            `json:"submissionMode"`
	SubmitterPodTemplate     *podTemplate      `json:"submitterPodTemplate"`
	ClusterSelector          map[string]string `json:"clusterSelector"`
	RayClusterSpec           *rayClusterSpec   `json:"rayClusterSpec"`
	DeletionStrategy         *deletionStrategy `json:"deletionStrategy"`
}

type rayJob struct {
	APIVersion string     `json:"apiVersion"`
	Kind       string     `json:"kind"`
	Metadata   objectMeta `json:"metadata"`
	Spec       rayJobSpec `json:"spec"`
}
