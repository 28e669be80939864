// Test-only differential programs: rayjob-guard's policy/quantity.cpp against
// k8s.io/apimachinery's resource.ParseQuantity, and policy/image_ref.cpp against
// github.com/distribution/reference. Versions pinned in test/peers/versions.env (checked by
// build.sh).
module rayjob-guard.test/differential/k8sref

go 1.26.0

require (
	github.com/distribution/reference v0.6.0
	k8s.io/apimachinery v0.37.2
)

require (
	github.com/fxamacker/cbor/v2 v2.9.1 // indirect
	github.com/opencontainers/go-digest v1.0.0 // indirect
	github.com/x448/float16 v0.8.4 // indirect
	gopkg.in/inf.v0 v0.9.1 // indirect
	sigs.k8s.io/json v0.0.0-20250730193827-2d320260d730 // indirect
)
