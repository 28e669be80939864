#!/usr/bin/env bash
# Installs, on Debian 12 as root, every package that building rayjob-guard and running its whole
# test suite needs. Idempotent: packages already present are left alone, and apt is only asked
# when something is missing. Usage: scripts/install-deps.sh [--build-only]
set -euo pipefail

build_packages=(
  g++ cmake make pkg-config libboost-dev libssl-dev openssl rapidjson-dev libspdlog-dev libfmt-dev
  libyaml-dev prometheus-cpp-dev libgtest-dev libgmock-dev googletest libbenchmark-dev
  # the policy's JSON schema (admission/policy.schema.json), validated by the binary
  libvalijson-dev
  # the process allocator of the binary and the review benchmark (RJG_MIMALLOC)
  libmimalloc-dev
)
test_packages=(
  # scripts and clients used by the test suites
  curl jq python3 python3-yaml python3-boto3 procps util-linux iproute2 ca-certificates
  # the shells `rayjob-guard completion` writes for (test/cli: cli.completion)
  bash zsh
  # the chart's rendered objects against the pinned Kubernetes OpenAPI (test/chart/strict_test.py)
  python3-jsonschema
  # load generators, TLS scanners, metrics lint, the nginx floor
  wrk nghttp2-client nginx-light sslscan testssl.sh prometheus
  # fuzzing and sanitizers (clang's libFuzzer and runtimes)
  clang libclang-rt-14-dev
  # instruction counts of review() (bench/instructions.sh, the bench.instructions test)
  valgrind
  # container images without a Docker engine
  podman buildah debootstrap skopeo runc uidmap
  # node for the S3-compatible test server
  nodejs npm
)

if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: run as root (apt-get install)" >&2
  exit 2
fi
wanted=("${build_packages[@]}")
[ "${1:-}" = "--build-only" ] || wanted+=("${test_packages[@]}")

missing=()
for p in "${wanted[@]}"; do
  # node/npm may come from outside Debian on some machines: a working binary is enough.
  case "$p" in
    nodejs) command -v node >/dev/null 2>&1 && continue ;;
    npm) command -v npm >/dev/null 2>&1 && continue ;;
  esac
  status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [ "$status" = "installed" ] || missing+=("$p")
done
# The control plane (kube-apiserver, controller-manager, scheduler, kubectl, etcd) is not a Debian
# package here: test/peers/build-kube.sh builds the pinned versions with Go from the module proxy.

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#wanted[@]} packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q "${missing[@]}"
