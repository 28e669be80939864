#!/usr/bin/env bash
# The whole test suite, exactly what .ci/run runs, on Debian 12 as root. It installs what is
# missing, builds the pinned peers (test/peers/versions.env) into ${XDG_CACHE_HOME:-~/.cache}/rayjob-guard/,
# builds (RelWithDebInfo), runs every CTest label (unit, golden, cli, server, e2e with a current
# kube-apiserver, reaper, ship, hardening, fuzz, ...), then rebuilds under AddressSanitizer +
# UndefinedBehaviorSanitizer and runs the unit and end-to-end suites again there.
#   RJG_SKIP_ASAN=1   skip the sanitizer pass (local iteration only; CI never sets it)
#   RJG_CTEST_ARGS    extra arguments for ctest (e.g. "-L unit")
# scripts/test.sh --tsan runs, instead of the release and asan passes, the same unit and end-to-end
# suites on a ThreadSanitizer build (preset tsan), collects every report under
# build-tsan/tsan-reports/ and fails if there is one. Not part of CI (docs/hardening.md, Sanitizers).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
start=$(date +%s)
step() { printf '\n=== %s (%ss)\n' "$*" "$(( $(date +%s) - start ))"; }

step "install missing packages"
scripts/install-deps.sh

# Waits for background job PID, which logs to LOG; shows the log's tail and fails with the job's
# status if it failed.
wait_background() {
  local pid=$1 log=$2 what=$3 rc=0
  wait "$pid" || rc=$?
  if [ "$rc" -ne 0 ]; then
    tail -n 60 "$log" >&2
    echo "test.sh: $what failed (exit $rc)" >&2
    exit "$rc"
  fi
  tail -n 5 "$log"
  rm -f "$log"
}

# The control plane the e2e suites run on (test/peers/versions.env; cached) builds in the
# background, in its own process group, beside the C++ release build: cold, much of it waits on
# module downloads. It is stopped if this script ends first.
kube_bin=$(test/peers/build-kube.sh --dir)
# The suites' kubectl is the pinned one, whatever else is on PATH.
export PATH=$kube_bin:$PATH
step "build the control plane in the background (log: build-kube)"
kube_log=$(mktemp)
setsid test/peers/build-kube.sh >"$kube_log" 2>&1 &
kube_pid=$!
trap 'kill -- -"$kube_pid" 2>/dev/null || true' EXIT
trap 'exit 143' TERM INT
wait_kube() {
  step "waiting for the control plane build"
  wait_background "$kube_pid" "$kube_log" "the control plane build (test/peers/build-kube.sh)"
  trap - EXIT TERM INT
}

# Configures and builds CMake preset $1 with the pinned kubectl; any further arguments prefix the
# build command (the background ASan build runs under nice and ionice).
build_preset() {
  local preset=$1
  shift
  cmake --preset "$preset" -DRJG_KUBECTL="$kube_bin/kubectl" &&
    "$@" cmake --build --preset "$preset" -j"$(nproc)"
}

if [ "${1:-}" = "--tsan" ]; then
  step "build (tsan preset: ThreadSanitizer)"
  build_preset tsan
  wait_kube
  step "test (tsan preset)"
  # The preset halts a process at its first report; log_path keeps the reports of servers that
  # the suites start in the background, whose stderr the tests do not print.
  reports=$repo/build-tsan/tsan-reports
  rm -rf "$reports"
  mkdir -p "$reports"
  rc=0
  # shellcheck disable=SC2086
  TSAN_OPTIONS="log_path=$reports/tsan" \
    ctest --preset tsan -L 'unit|golden|cli|server|e2e|reaper' ${RJG_CTEST_ARGS:-} || rc=$?
  step "bad-input table against the tsan server (one pass)"
  # Many short connections on two I/O threads: the driver that catches connection-lifecycle races
  # best (docs/hardening.md). Its RSS bounds are for the release allocator and TSan's shadow memory
  # breaks them, so "RSS growth" is the one failure accepted here; every row must pass.
  TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 log_path=$reports/tsan" \
    python3 test/hardening/bad_inputs.py --binary build-tsan/rayjob-guard --repeat 1 \
    >"$reports/bad_inputs.log" 2>&1 || true
  cat "$reports/bad_inputs.log"
  summary=$(tail -n 1 "$reports/bad_inputs.log")
  if ! [[ $summary =~ ^([0-9]+)/([0-9]+)\ rows\ passed,\ 1\ passes(\;\ failed:\ RSS\ growth)?$ ]] ||
    [ "${BASH_REMATCH[1]}" != "${BASH_REMATCH[2]}" ]; then
    echo "bad-input table failed under tsan: $summary" >&2
    rc=1
  fi
  if compgen -G "$reports/tsan.*" >/dev/null; then
    cat "$reports"/tsan.*
    echo "ThreadSanitizer reports: $(find "$reports" -name 'tsan.*' | wc -l) (in $reports)" >&2
    rc=1
  fi
  [ "$rc" -eq 0 ] || exit "$rc"
  step "tsan pass: all tests passed, no ThreadSanitizer report"
  exit 0
fi

step "build (release preset)"
build_preset release
wait_kube

step "test (release preset)"
if [ -n "${RJG_CTEST_ARGS:-}" ]; then
  # shellcheck disable=SC2086
  ctest --preset release ${RJG_CTEST_ARGS}
else
  # Two passes over every test. First the lifecycle groups, which mostly wait (TTLs, deadlines,
  # Ray heads starting), one at a time (their RESOURCE_LOCK), beside the CPU-bound suites that
  # share no cluster, lock or measurement with them; then everything else one at a time: the
  # suites that measure (hardening, server, the benchmarks), run clusters or Ray heads of their
  # own (e2e, reaper, identity) or build images (ship). docs/e2e.md, "The cold run".
  # The ASan+UBSan tree builds beside the first pass at the lowest CPU and I/O priority, on the
  # cores the waiting lifecycle groups leave idle; the second pass starts only once it is done,
  # so nothing runs beside the suites that measure.
  overlap='^(lifecycle|fuzz|conformance|chart|differential|cli|golden|docs)$'
  asan_pid="" asan_log=""
  if [ "${RJG_SKIP_ASAN:-0}" != "1" ]; then
    step "build (asan preset) in the background, beside the first pass"
    asan_log=$(mktemp)
    build_preset asan nice -n 19 ionice -c3 >"$asan_log" 2>&1 &
    asan_pid=$!
  fi
  rc=0
  ctest --preset release -j2 -L "$overlap" || rc=$?
  if [ -n "$asan_pid" ]; then
    step "waiting for the asan build"
    wait_background "$asan_pid" "$asan_log" "the asan build"
  fi
  step "test (release preset, the suites that run alone)"
  ctest --preset release -LE "$overlap" || rc=$?
  [ "$rc" -eq 0 ] || exit "$rc"
fi

if [ "${RJG_SKIP_ASAN:-0}" != "1" ]; then
  if [ -n "${RJG_CTEST_ARGS:-}" ]; then
    step "build (asan preset: AddressSanitizer + UndefinedBehaviorSanitizer)"
    build_preset asan
  fi
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
