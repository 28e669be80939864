// The reference side of the YAML differential test (main.go): kubectl's document splitting and
// YAML-to-JSON, at the versions Kubernetes v1.37.2 uses (test/peers/versions.env pins them).
module rayjob-guard.test/differential/yaml

go 1.26.0

require (
	go.yaml.in/yaml/v2 v2.4.4
	k8s.io/apimachinery v0.37.2
	sigs.k8s.io/yaml v1.6.0
)

require (
	golang.org/x/text v0.40.0
	sigs.k8s.io/json v0.0.0-20250730193827-2d320260d730 // indirect
)
