#!/usr/bin/env bash
# Builds and runs the libFuzzer targets of fuzz/ (see fuzz/CMakeLists.txt and docs/hardening.md).
#
# usage: test/fuzz/run-fuzzers.sh build   [--build-dir DIR]
#        test/fuzz/run-fuzzers.sh run T   [--build-dir DIR] [--seconds N] [-- extra libFuzzer flags]
#        test/fuzz/run-fuzzers.sh replay  [--build-dir DIR]
#        test/fuzz/run-fuzzers.sh long    [--build-dir DIR] [--seconds N]   every target, niced
# T is one of: review manifest quantity policy runtime_env.
#
# build   configures (once) a clang ASan+UBSan+libFuzzer build of the repository in DIR
#         (default: <repo>/build-fuzz; CTest passes <build>/fuzz-build) and builds the fuzzers.
# run     seeds DIR/corpus/T from fuzz/seeds/T and the test fixtures (golden requests, manifest
#         corpus, policy files, the built-in default policy, the bench payloads), then fuzzes for
#         N seconds (default $RJG_FUZZ_SECONDS, else 30). Fails on any crash, leak, timeout (10 s
#         per input), out-of-memory (2 GiB) or failed invariant; the input is left in
#         DIR/artifacts/T/ and the path is printed. Prints runs and exec/s at the end.
# replay  runs every file of fuzz/regressions/T/ once through fuzz_T; fails if any crashes.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=test/harness/harness.sh
. "$here/../harness/harness.sh"
harness_init run-fuzzers colon
src=$(cd "$here/../.." && pwd)
targets=(review manifest quantity policy runtime_env)

mode="${1:-}"; [ -n "$mode" ] || die "usage: run-fuzzers.sh build|run T|replay|long (see the header)"
shift
target=""
if [ "$mode" = run ]; then target="${1:-}"; shift || true; fi
build="$src/build-fuzz" seconds="${RJG_FUZZ_SECONDS:-30}" extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build="${2:?}"; shift 2 ;;
    --seconds) seconds="${2:?}"; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    *) die "unknown argument '$1'" ;;
  esac
done
[[ "$seconds" =~ ^[0-9]+$ ]] || die "--seconds must be a whole number"

do_build() {
  need clang++ -- apt-get install -y clang libclang-rt-14-dev
  mkdir -p "$build"
  # Several CTest processes may ask for the build at once: one configures and builds, the rest wait.
  exec 9>"$build/.build.lock"
  flock 9
  if [ ! -f "$build/CMakeCache.txt" ]; then
    CC=clang CXX=clang++ cmake -S "$src" -B "$build" -DRJG_BUILD_FUZZERS=ON -DRJG_BUILD_TESTS=OFF \
      -DRJG_BUILD_BENCHMARKS=OFF -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS=-O1 >"$build/configure.log" 2>&1 ||
      { cat "$build/configure.log" >&2; die "configuring the fuzz build failed"; }
  fi
  # One target at a time, so a layer that does not build yet costs only its own fuzzer.
  local t failed=()
  for t in "${targets[@]}"; do
    nice -n 5 cmake --build "$build" -j2 --target "fuzz_$t" >"$build/build-$t.log" 2>&1 || failed+=("$t")
  done
  flock -u 9
  if [ ${#failed[@]} -gt 0 ]; then
    for t in "${failed[@]}"; do grep -E 'error|Error' "$build/build-$t.log" | head -8 >&2; done
    die "could not build: ${failed[*]} (logs: $build/build-<target>.log)"
  fi
  echo "built: ${targets[*]/#/fuzz_} in $build/fuzz"
}

binary() {
  local b="$build/fuzz/fuzz_$1"
  [ -x "$b" ] || die "$b is missing: run '$0 build --build-dir $build' first"
  echo "$b"
}

# seed T DIR: fills DIR with the curated seeds and everything the fixtures offer for target T.
seed() {
  local t="$1" dir="$2" f i=0
  mkdir -p "$dir"
  cp -f "$src/fuzz/seeds/$t/"* "$dir/" 2>/dev/null || true
  case "$t" in
    review)
      for f in "$src"/test/golden/cases/*/request.json; do
        [ -f "$f" ] && cp -f "$f" "$dir/golden-$(basename "$(dirname "$f")").json"
      done
      python3 "$src/bench/peers/make-reviews.py" "$dir/.bench" >/dev/null &&
        for f in "$dir"/.bench/*.json; do mv -f "$f" "$dir/bench-$(basename "$f")"; done
      rm -rf "$dir/.bench" ;;
    manifest)
      for f in "$src"/test/corpus/*.yaml "$src"/test/corpus/*.yml "$src"/test/corpus/*.json; do
        [ -f "$f" ] && cp -f "$f" "$dir/corpus-$(basename "$f")"
      done
      # The RayJob objects of the golden requests, as JSON manifests.
      for f in "$src"/test/golden/cases/*/request.json; do
        [ -f "$f" ] || continue
        python3 - "$f" "$dir/golden-$(basename "$(dirname "$f")").json" <<'EOF' || true
import json, sys
r = json.load(open(sys.argv[1])).get("request") or {}
if isinstance(r.get("object"), dict):
    json.dump(r["object"], open(sys.argv[2], "w"))
EOF
      done ;;
    policy)
      RJG_FUZZ_WRITE_DEFAULT="$dir/default-policy.yaml" "$(binary policy)" -runs=0 "$dir" >/dev/null 2>&1 || true
      while IFS= read -r f; do
        i=$((i + 1)); cp -f "$f" "$dir/fixture-$i-$(basename "$f")"
      done < <(grep -rlsE '^kind: *Policy' --include='*.yaml' --include='*.yml' \
                 "$src/test" "$src/deploy" "$src/docs" "$src/examples" 2>/dev/null || true) ;;
    quantity)
      # Every quantity string the manifest corpus uses.
      for f in "$src"/test/corpus/*.yaml; do
        [ -f "$f" ] || continue
        # A manifest without quantities (clusterSelector mode) is fine: grep's 1 must not end the run.
        { grep -oE '(cpu|memory|nvidia.com/gpu|pods|storage): *"?[-+0-9.eEinumkKMGTPi]+"?' "$f" 2>/dev/null || true; } |
          sed -E 's/^[^:]+: *"?//; s/"$//' | sort -u | while IFS= read -r q; do
            printf '%s' "$q" >"$dir/corpus-$(printf '%s' "$q" | md5sum | cut -c1-12)"
          done
      done ;;
  esac
}

dict_for() {
  case "$1" in
    review) echo "$src/fuzz/dicts/json.dict" ;;
    manifest|policy|runtime_env) echo "$src/fuzz/dicts/yaml.dict" ;;
    quantity) echo "$src/fuzz/dicts/quantity.dict" ;;
  esac
}

max_len_for() {
  case "$1" in
    review|manifest) echo 65536 ;;
    policy|runtime_env) echo 16384 ;;
    quantity) echo 128 ;;
  esac
}

do_run() {
  local t="$1" bin corpus artifacts log rc
  # A match in the shell, not `printf | grep -q`: under pipefail, grep leaving at its first match
  # can kill printf with SIGPIPE and fail the pipeline for a known target.
  [[ " ${targets[*]} " == *" $t "* ]] || die "unknown target '$t' (${targets[*]})"
  bin=$(binary "$t")
  corpus="$build/corpus/$t"
  artifacts="$build/artifacts/$t"
  log="$build/logs/fuzz-$t.log"
  mkdir -p "$artifacts" "$(dirname "$log")"
  seed "$t" "$corpus"
  echo "fuzz_$t: ${seconds}s, corpus $(ls "$corpus" | wc -l) files, log $log"
  set +e
  nice -n 5 "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -max_len="$(max_len_for "$t")" -dict="$(dict_for "$t")" -print_final_stats=1 \
    -artifact_prefix="$artifacts/" "${extra[@]+"${extra[@]}"}" "$corpus" >"$log" 2>&1
  rc=$?
  set -e
  local runs eps
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  echo "fuzz_$t: exit $rc, ${runs:-?} runs, ${eps:-?} exec/s, corpus now $(ls "$corpus" | wc -l) files"
  if [ "$rc" -ne 0 ]; then
    grep -E 'ERROR|FUZZ_CHECK|SUMMARY|runtime error|Test unit written|artifact' "$log" | head -20 >&2
    echo "fuzz_$t: FAILED; reproduce with: $bin <the file above>; keep it as fuzz/regressions/$t/<name>" >&2
    return 1
  fi
}

do_replay() {
  local t bin files failed=0
  for t in "${targets[@]}"; do
    files=("$src/fuzz/regressions/$t/"*)
    [ -e "${files[0]}" ] || continue
    # A regression file for a target that the build does not have yet is skipped, loudly.
    if [ ! -x "$build/fuzz/fuzz_$t" ]; then
      echo "replay: fuzz_$t not built, ${#files[@]} regression file(s) not replayed" >&2
      continue
    fi
    bin="$build/fuzz/fuzz_$t"
    if "$bin" -runs=1 -timeout=10 -rss_limit_mb=2048 "${files[@]}" >"$build/replay-$t.log" 2>&1; then
      echo "replay: fuzz_$t: ${#files[@]} regression input(s) pass"
    else
      failed=1
      grep -E 'Running:|FUZZ_CHECK|ERROR|SUMMARY|runtime error' "$build/replay-$t.log" | head -20 >&2
      echo "replay: fuzz_$t FAILED (log $build/replay-$t.log)" >&2
    fi
  done
  return "$failed"
}

case "$mode" in
  build) do_build ;;
  run) do_run "$target" ;;
  replay) do_replay ;;
  long)
    do_build
    status=0
    for t in "${targets[@]}"; do
      if [ -x "$build/fuzz/fuzz_$t" ]; then do_run "$t" || status=1; fi
    done
    exit "$status" ;;
  *) die "unknown mode '$mode' (build, run, replay, long)" ;;
esac
