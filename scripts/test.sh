#!/usr/bin/env bash
# The whole test suite, exactly what .ci/run runs, on Debian 12 as root. It installs what is
# missing, builds (RelWithDebInfo), runs every CTest label (unit, golden, cli, server, e2e with a
# real kube-apiserver, reaper, ship, hardening, fuzz), then rebuilds under AddressSanitizer +
# UndefinedBehaviorSanitizer and runs the suites again there.
#   RJG_SKIP_ASAN=1   skip the sanitizer pass (local iteration only; CI never sets it)
#   RJG_CTEST_ARGS    extra arguments for ctest (e.g. "-L unit")
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
start=$(date +%s)
step() { printf '\n=== %s (%ss)\n' "$*" "$(( $(date +%s) - start ))"; }

step "install missing packages"
scripts/install-deps.sh

step "build the kube-apiserver and kube-controller-manager used by the e2e suites (cached)"
test/e2e/build-kube.sh

step "build (release preset)"
cmake --preset release
cmake --build --preset release -j"$(nproc)"

step "test (release preset)"
# shellcheck disable=SC2086
ctest --preset release ${RJG_CTEST_ARGS:-}

if [ "${RJG_SKIP_ASAN:-0}" != "1" ]; then
  step "build (asan preset: AddressSanitizer + UndefinedBehaviorSanitizer)"
  cmake --preset asan
  cmake --build --preset asan -j"$(nproc)"
  step "test (asan preset)"
  # The image build and the fuzzers (their own sanitized clang build) gain nothing from a
  # second pass; everything else runs again under the sanitizers.
  # shellcheck disable=SC2086
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --preset asan -LE 'image|fuzz' ${RJG_CTEST_ARGS:-}
fi
step "all tests passed"
