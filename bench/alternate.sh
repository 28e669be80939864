#!/usr/bin/env bash
# CPU times of two or more builds of the review benchmark, run alternately on one pinned core: the
# way docs/performance.md compares builds on a shared machine, where one binary's CPU time moves by
# up to a factor of two between runs. Each round runs every binary once, in the order given; the
# figure kept for a benchmark is its fastest run over all rounds (the least disturbed).
#
# usage: bench/alternate.sh [--rounds N] [--min-time SECONDS] [--filter REGEX] LABEL=BINARY...
#   e.g. bench/alternate.sh glibc=build-glibc/bench/rjg_review_benchmark \
#                           mimalloc=build/bench/rjg_review_benchmark
#
# Prints a markdown table: each benchmark's fastest CPU time in µs under each label; then, per
# label, each review's time over its floor's (BM_ReviewTypical / BM_FloorTokenize ..., the pairs
# the benchmark names in its output's context), which compares within one binary only
# (docs/performance.md says why). Defaults: 10 rounds, 0.2 s per
# benchmark, the three reviews and their floors. Needs taskset and python3.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=test/harness/harness.sh
. "$here/../test/harness/harness.sh"
harness_init alternate colon

usage="usage: bench/alternate.sh [--rounds N] [--min-time SECONDS] [--filter REGEX] LABEL=BINARY..."
rounds=10
min_time=0.2
filter='^BM_(Review(Small|Typical|Large)|FloorTokenize(Small|Large)?)$'
builds=()
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds="${2:?}"; shift 2 ;;
    --min-time) min_time="${2:?}"; shift 2 ;;
    --filter) filter="${2:?}"; shift 2 ;;
    -*) die "unknown option '$1' ($usage)" ;;
    *=*) builds+=("$1"); shift ;;
    *) die "'$1' is not LABEL=BINARY ($usage)" ;;
  esac
done
[ ${#builds[@]} -gt 0 ] || die "no LABEL=BINARY given ($usage)"
[[ $rounds =~ ^[1-9][0-9]*$ ]] || die "--rounds must be a whole number of at least 1"
need taskset -- apt-get install -y util-linux
need python3
for b in "${builds[@]}"; do
  [ -x "${b#*=}" ] || die "${b#*=} is not an executable (for ${b%%=*})"
done

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for r in $(seq "$rounds"); do
  for b in "${builds[@]}"; do
    taskset -c 1 "${b#*=}" --benchmark_filter="$filter" --benchmark_min_time="$min_time" \
      --benchmark_out="$out/${b%%=*}.$r.json" --benchmark_out_format=json >"$out/run.log" 2>&1 ||
      { cat "$out/run.log" >&2; die "${b%%=*} failed in round $r"; }
  done
  log "round $r of $rounds done"
done

python3 - "$out" "${builds[@]%%=*}" <<'EOF'
import glob, json, os, sys
out, labels = sys.argv[1], sys.argv[2:]
units = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}
fastest = {}  # (label, benchmark) -> µs
names = []
floors = {}  # (label, review benchmark) -> its floor's, from that binary's own context
for label in labels:
    for path in glob.glob(os.path.join(out, f"{label}.*.json")):
        text = open(path).read()  # empty when the filter matched no benchmark
        report = json.loads(text) if text.strip() else {"context": {}, "benchmarks": []}
        for key, value in report["context"].items():
            if key.startswith("floor of "):
                floors[(label, key.removeprefix("floor of "))] = value
        for b in report["benchmarks"]:
            if b.get("run_type") != "iteration" or b.get("error_occurred"):
                continue
            us = b["cpu_time"] * units[b["time_unit"]]
            key = (label, b["name"])
            fastest[key] = min(fastest.get(key, us), us)
            if b["name"] not in names:
                names.append(b["name"])
if not names:
    sys.exit("alternate: no benchmark ran (check --filter)")
print("| benchmark | " + " | ".join(f"{l}, µs" for l in labels) + " |")
print("|---|" + "---:|" * len(labels))
for n in names:
    print(f"| {n} | " + " | ".join(f"{fastest[(l, n)]:.2f}" if (l, n) in fastest else "-"
                                   for l in labels) + " |")
for l in labels:
    ratios = [f"{r.removeprefix('BM_Review').lower()} {fastest[(l, r)] / fastest[(l, f)]:.2f}"
              for r in names if (f := floors.get((l, r))) and (l, r) in fastest and (l, f) in fastest]
    if ratios:
        print(f"\n{l}: review / floor: " + ", ".join(ratios))
EOF
