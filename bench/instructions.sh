#!/usr/bin/env bash
# Instructions per review() and per tokenize of the same body (the parse stage's floor), counted by
# callgrind: the steady companion of bench/review_benchmark.cpp's CPU times. On a shared machine
# those move by up to a factor of two between runs of one binary; an instruction count moves by
# less than 1 % (the benchmark's iteration count follows the clock, and with it how far the first
# call's setup is spread), so two builds or two versions of a stage compare in one run each. An
# instruction is not a unit of time, though: the tokenizer retires more instructions per cycle
# than the review's allocations and lookups do, so the CPU-time ratio stays the figure of record
# (docs/performance.md; bench/alternate.sh compares the CPU times of builds).
#
# usage: bench/instructions.sh [--binary PATH]   (default: build/bench/rjg_review_benchmark)
#
# Prints a markdown table: for the small, typical and large review of the benchmark, instructions
# per review() and per tokenize, and their ratio; then the stages of the typical review. Needs
# valgrind and python3; takes about 10 seconds.
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

# per_call BENCHMARK FUNCTION...: for each FUNCTION (the start of its demangled name, up to the
# parameter list), its inclusive instructions per call in that benchmark's profile, one per line.
# Fails naming any function the profile never calls.
per_call() {
  python3 - "$out/$1" "${@:2}" <<'EOF'
import re, sys
path, prefixes = sys.argv[1], sys.argv[2:]
patterns = {p: re.compile(re.escape(p) + r'(\[abi:\w+\])?\(') for p in prefixes}
calls, cost = dict.fromkeys(prefixes, 0), dict.fromkeys(prefixes, 0)
names = {}
lines = open(path).read().splitlines()
for i, line in enumerate(lines):
    m = re.match(r'c?fn=\((\d+)\)(?: (.*))?$', line)
    if not m:
        continue
    if m.group(2):
        names[m.group(1)] = m.group(2)
    if not line.startswith('cfn=') or i + 2 >= len(lines) or not lines[i + 1].startswith('calls='):
        continue
    for p, pattern in patterns.items():
        if pattern.match(names.get(m.group(1), '')):
            calls[p] += int(lines[i + 1].split('=')[1].split()[0])
            cost[p] += int(lines[i + 2].split()[1])
missing = [p for p in prefixes if calls[p] == 0]
if missing:
    sys.exit(f"no call of {', '.join(missing)} in {path}")
for p in prefixes:
    print(round(cost[p] / calls[p]))
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

# The stages of the typical review: the function counted, and its row in docs/performance.md.
# shellcheck disable=SC2016  # the backquotes are markdown, printed as they are
stages=(
  'rjg::admission::json::parse_in_place|`json::parse_in_place`: byte check, copy, tokenize, DOM'
  'rjg::admission::decode_rayjob|`decode_rayjob`: the model, runtimeEnvYAML included'
  'rjg::admission::parse_runtime_env|of which `parse_runtime_env` (libyaml)'
  'rjg::policy::evaluate|`policy::evaluate`'
  'rjg::admission::encode_review|`encode_review`'
)
counts=$(per_call BM_ReviewTypical "${stages[@]%%|*}") || die "no figure for a stage of BM_ReviewTypical"
mapfile -t counts <<<"$counts"
echo
echo "| stage of the typical review | instructions |"
echo "|---|---:|"
for i in "${!stages[@]}"; do
  echo "| ${stages[i]#*|} | ${counts[i]} |"
done
