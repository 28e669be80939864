#!/usr/bin/env bash
# The whole test suite, exactly what .ci/run runs, on Debian 12 as root. It installs what is
# missing, builds (RelWithDebInfo), runs every CTest label (unit, golden, cli, server, e2e with a
# real kube-apiserver, reaper, ship, hardening, fuzz), then rebuilds under AddressSanitizer +
# UndefinedBehaviorSanitizer and runs the unit and end-to-end suites again there.
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
  # The unit and end-to-end suites again, on the sanitized binaries. Not repeated: the fuzzers
  # (already their own ASan+UBSan clang build), the container image and the other ship checks
  # (they exercise packaging, not our C++), and the hardening table (its memory bounds are for
  # the release allocator; run it against build-asan/rayjob-guard by hand, docs/hardening.md).
  # shellcheck disable=SC2086
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --preset asan -L 'unit|golden|cli|server|e2e|reaper' ${RJG_CTEST_ARGS:-}
fi
step "all tests passed"
