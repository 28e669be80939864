#!/usr/bin/env bash
# Instructions per review() and per tokenize of the same body (the parse stage's floor), counted by
# callgrind: the deterministic companion of bench/review_benchmark.cpp's CPU times. On a shared
# machine those move by up to a factor of two between runs of one binary; an instruction count
# does not move at all, so two builds or two versions of a stage compare exactly. An instruction
# is not a unit of time, though: the tokenizer retires more instructions per cycle than the
# review's allocations and lookups do, so the CPU-time ratio stays the figure of record
# (docs/performance.md).
#
# usage: bench/instructions.sh [--binary PATH]   (default: build/bench/rjg_review_benchmark)
#
# Prints a markdown table: for the small, typical and large review of the benchmark, instructions
# per review() and per tokenize, and their ratio; then the stages of the typical review. Needs
# valgrind and python3; takes about a minute.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
# shellcheck source=test/harness/harness.sh
. "$here/../test/harness/harness.sh"
harness_init instructions colon

binary="$repo/build/bench/rjg_review_benchmark"
while [ $# -gt 0 ]; do
  case "$1" in
    --binary) binary="${2:?}"; shift 2 ;;
    *) die "unknown argument '$1' (usage: bench/instructions.sh [--binary PATH])" ;;
  esac
done
need valgrind -- apt-get install -y valgrind
need python3
[ -x "$binary" ] || die "$binary is missing: cmake --build --preset release --target rjg_review_benchmark"

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# profile BENCHMARK: runs one benchmark of the binary under callgrind, into $out/BENCHMARK.
profile() {
  valgrind --tool=callgrind --callgrind-out-file="$out/$1" "$binary" --benchmark_min_time=0.01 \
    "--benchmark_filter=^$1\$" >"$out/$1.log" 2>&1 || { cat "$out/$1.log" >&2; die "callgrind failed on $1"; }
}

# per_call BENCHMARK FUNCTION: instructions per call of FUNCTION (the start of its demangled
# name, up to the parameter list), inclusive, in that benchmark's profile.
per_call() {
  python3 - "$out/$1" "$2" <<'EOF'
import re, sys
path, prefix = sys.argv[1], sys.argv[2]
names, calls, cost = {}, 0, 0
lines = open(path).read().splitlines()
for i, line in enumerate(lines):
    m = re.match(r'c?fn=\((\d+)\)(?: (.*))?$', line)
    if not m:
        continue
    if m.group(2):
        names[m.group(1)] = m.group(2)
    name = names.get(m.group(1), '')
    if line.startswith('cfn=') and re.match(re.escape(prefix) + r'(\[abi:\w+\])?\(', name) \
            and i + 2 < len(lines) and lines[i + 1].startswith('calls='):
        calls += int(lines[i + 1].split('=')[1].split()[0])
        cost += int(lines[i + 2].split()[1])
if calls == 0:
    sys.exit(f"no call of {prefix} in {path}")
print(round(cost / calls))
EOF
}

for b in ReviewSmall ReviewTypical ReviewLarge FloorTokenizeSmall FloorTokenize FloorTokenizeLarge; do
  profile "BM_$b"
done

echo "| review | instructions per review() | per tokenize | ratio |"
echo "|---|---:|---:|---:|"
for size in Small Typical Large; do
  floor=FloorTokenize
  [ "$size" = Typical ] || floor="FloorTokenize$size"
  review=$(per_call "BM_Review$size" rjg::admission::review) || die "no figure for BM_Review$size"
  tokenize=$(per_call "BM_$floor" rjg::bench::tokenize_in_place) || die "no figure for BM_$floor"
  printf '| %s | %d | %d | %.2f |\n' "${size,,}" "$review" "$tokenize" \
    "$(python3 -c "print($review / $tokenize)")"
done
echo
echo "| stage of the typical review | instructions |"
echo "|---|---:|"
for stage in json::parse_in_place decode_rayjob parse_runtime_env policy::evaluate encode_review; do
  case "$stage" in
    policy::*) fn="rjg::$stage" ;;
    *) fn="rjg::admission::$stage" ;;
  esac
  n=$(per_call BM_ReviewTypical "$fn") || die "no figure for $fn"
  case "$stage" in
    decode_rayjob) label="decode_rayjob (the model, runtimeEnvYAML included)" ;;
    json::parse_in_place) label="json::parse_in_place (byte check, copy, DOM)" ;;
    *) label=$stage ;;
  esac
  echo "| \`$label\` | $n |"
done
