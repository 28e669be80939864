#!/usr/bin/env bash
# Soak test: holds load on `rayjob-guard serve` for a while and changes its world every minute.
#
# usage: bench/soak.sh [--minutes 10] [--rate R] [--connections 16] [--payload typical]
#                      [--out FILE.md]
# Env: RJG_BIN (default: the newest build*/rayjob-guard).
#
# 1. Starts serve (core 0) with a policy file and certificates laid out as a kubelet Secret
#    volume does (tls.crt -> ..data/tls.crt, ..data -> a generation directory), so a rotation
#    swaps certificate and key in one atomic rename.
# 2. Measures the maximum rate with a 10 s wrk run (core 1), unless --rate is given; the soak
#    rate is half of it.
# 3. Runs wrk for --minutes at that rate (each connection paces itself with wrk's delay()), and
#    every minute re-mints the serving certificate (same CA) and makes a valid policy edit
#    (maxBackoffLimit 2 <-> 3, atomically). RSS is sampled every 5 s.
# 4. Reports requests, errors (non-2xx + socket errors; must be 0), p50/p99, the reloads the
#    server logged, and RSS at start vs end. Exits 1 on errors, a missed reload, an error-level
#    log line, or RSS growth beyond noise (end > start x 1.25 + 8 MiB).
set -euo pipefail
BL_NAME=soak
. "$(dirname "$0")/peers/bench-lib.sh"

minutes=10 rate="" conns=16 payload=typical out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --minutes) minutes="${2:?}"; shift 2 ;;
    --rate) rate="${2:?}"; shift 2 ;;
    --connections) conns="${2:?}"; shift 2 ;;
    --payload) payload="${2:?}"; shift 2 ;;
    --out) out="${2:?}"; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) bl_die "unknown argument '$1' (see --help)" ;;
  esac
done
[[ "$minutes" =~ ^[0-9]+$ && "$minutes" -ge 1 ]] || bl_die "--minutes must be a whole number >= 1"
for t in wrk taskset python3 curl openssl; do command -v "$t" >/dev/null || bl_die "$t is not installed"; done
repo=$(bl_repo)
bin=$(bl_find_rjg)
[ -x "$bin" ] || bl_die "no rayjob-guard executable (build it or set RJG_BIN)"
work=$(mktemp -d "${TMPDIR:-/tmp}/soak.XXXXXX")
trap 'bl_cleanup' EXIT
echo "soak: work directory $work" >&2

# Certificates as a Secret volume: certs/{tls.crt,tls.key} -> ..data/ -> gen-N/
mint_generation() {  # mint_generation N: writes certs/gen-N and points ..data at it atomically
  local n="$1" d="$work/certs/gen-$1"
  "$repo/certs/mint-certs.sh" --out "$d" --ca-dir "$work/ca" --san IP:127.0.0.1 --san DNS:localhost >/dev/null
  ln -sfn "gen-$n" "$work/certs/..data.tmp"
  mv -T "$work/certs/..data.tmp" "$work/certs/..data"
}
"$repo/certs/mint-certs.sh" --out "$work/ca" --san IP:127.0.0.1 >/dev/null   # the CA (and a first pair)
mkdir -p "$work/certs"
mint_generation 0
ln -sfn ..data/tls.crt "$work/certs/tls.crt"
ln -sfn ..data/tls.key "$work/certs/tls.key"

# The policy: the built-in default, edited in place by atomic renames.
"$bin" policy default >"$work/policy.yaml" || bl_die "rayjob-guard policy default failed"
grep -q 'maxBackoffLimit: 2' "$work/policy.yaml" || bl_die "the default policy has no 'maxBackoffLimit: 2' line to edit"
edit_policy() {  # edit_policy N: maxBackoffLimit alternates 3, 2, 3, ...
  local v=$(( $1 % 2 == 1 ? 3 : 2 ))
  sed -E "s/maxBackoffLimit: [0-9]+/maxBackoffLimit: $v/" "$work/policy.yaml" >"$work/policy.yaml.tmp"
  mv "$work/policy.yaml.tmp" "$work/policy.yaml"
}

python3 "$repo/bench/peers/make-reviews.py" "$work/payloads" >/dev/null
body="$work/payloads/$payload.json"
[ -f "$body" ] || bl_die "no payload '$payload' (small, typical, large)"
bl_write_lua "$work"

bl_start_rjg "$work" "$bin" --threads 1 --policy "$work/policy.yaml" --log-format json
url="https://127.0.0.1:$RJG_PORT/validate"
curl -s --cacert "$work/ca/ca.crt" -H 'Content-Type: application/json' --data-binary @"$body" "$url" |
  grep -q '"allowed":true' || bl_die "the soak payload is not allowed by the default policy"

if [ -z "$rate" ]; then
  bl_wrk "$work/max.txt" "$body" "$url" 10 "$conns" post.lua
  read -r max_rps _ max_p99 _ max_errs < <(bl_parse_wrk "$work/max.txt")
  rate=$(python3 -c "print(max(1, int(float('$max_rps') / 2)))")
  echo "soak: maximum ${max_rps} req/s (p99 ${max_p99} ms, errors ${max_errs}); soaking at ${rate} req/s" >&2
fi
# Each connection waits `delay` ms between its requests: conns * 1000 / delay ~= rate.
delay=$(python3 -c "print(max(0, int($conns * 1000 / $rate)))")
sed "s/^wrk.method = \"POST\"$/wrk.method = \"POST\"\nfunction delay() return $delay end/" "$work/post.lua" >"$work/paced.lua"

# RSS sampler
( while kill -0 "$RJG_PID" 2>/dev/null; do
    echo "$(date +%s) $(bl_rss_kb "$RJG_PID")" >>"$work/rss.txt"; sleep 5
  done ) &
BL_PIDS+=($!)
sleep 6
rss_start=$(bl_rss_kb "$RJG_PID")

# Every minute: a new certificate generation and a policy edit.
( for n in $(seq 1 "$minutes"); do
    sleep 60
    [ "$n" -lt "$minutes" ] || break
    mint_generation "$n"
    edit_policy "$n"
    echo "$(date +%s) rotation $n" >>"$work/rotations.txt"
  done ) &
BL_PIDS+=($!)

echo "soak: ${minutes} min at ~${rate} req/s (${conns} connections, delay ${delay} ms), payload $payload" >&2
BODY="$body" taskset -c 1 wrk -t1 -c"$conns" -d"${minutes}m" --timeout 10s --latency -s "$work/paced.lua" "$url" \
  >"$work/soak.txt" 2>&1 || true
read -r rps p50 p99 requests errs < <(bl_parse_wrk "$work/soak.txt")
rss_end=$(bl_rss_kb "$RJG_PID")
alive=yes; kill -0 "$RJG_PID" 2>/dev/null || alive=no
rotations=$(wc -l <"$work/rotations.txt" 2>/dev/null || echo 0)
cert_reloads=$(grep -c '"certificate reloaded"' "$work/rjg.log" || true)
policy_reloads=$(grep -c '"policy reloaded"' "$work/rjg.log" || true)
error_lines=$(grep -cE '"level":"(error|critical)"' "$work/rjg.log" || true)
rss_max=$(awk 'BEGIN{m=0} {if ($2 > m) m = $2} END {print m}' "$work/rss.txt")

# The certificate served at the end must be the last generation's.
served=$(openssl s_client -connect "127.0.0.1:$RJG_PORT" -servername localhost </dev/null 2>/dev/null |
  openssl x509 -noout -fingerprint -sha256 2>/dev/null | cut -d= -f2)
last=$(openssl x509 -in "$work/certs/tls.crt" -noout -fingerprint -sha256 | cut -d= -f2)

table=$(cat <<EOF
| soak | value |
|---|---|
| date (UTC) | $(date -u +%Y-%m-%dT%H:%MZ) |
| machine | $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores shared |
| duration, payload, connections | ${minutes} min, $payload ($(wc -c <"$body") B), $conns |
| target rate (half the measured maximum${max_rps:+ of ${max_rps}}) | ${rate} req/s |
| achieved | ${rps} req/s, ${requests} requests |
| errors (non-2xx + socket) | ${errs} |
| latency p50 / p99 | ${p50} ms / ${p99} ms |
| certificate rotations / reloads logged | ${rotations} / ${cert_reloads} |
| policy edits / reloads logged | ${rotations} / ${policy_reloads} |
| error-level log lines | ${error_lines} |
| RSS start / end / max | $((rss_start / 1024)) MiB / $((rss_end / 1024)) MiB / $((rss_max / 1024)) MiB |
| serving the last certificate at the end | $([ "$served" = "$last" ] && echo yes || echo no) |
EOF
)
echo "$table"
[ -z "$out" ] || echo "$table" >"$out"

fail=0
[ "$alive" = yes ] || { echo "soak: FAIL serve died" >&2; fail=1; }
[ "$errs" = 0 ] || { echo "soak: FAIL $errs errors" >&2; fail=1; }
[ "$requests" -gt 0 ] || { echo "soak: FAIL no requests" >&2; fail=1; }
[ "$cert_reloads" -ge "$rotations" ] || { echo "soak: FAIL $rotations rotations but $cert_reloads certificate reloads" >&2; fail=1; }
[ "$policy_reloads" -ge "$rotations" ] || { echo "soak: FAIL $rotations policy edits but $policy_reloads reloads" >&2; fail=1; }
[ "$error_lines" = 0 ] || { echo "soak: FAIL error-level log lines:" >&2; grep -E '"level":"(error|critical)"' "$work/rjg.log" | head -5 >&2; fail=1; }
[ "$served" = "$last" ] || { echo "soak: FAIL the server does not serve the last certificate" >&2; fail=1; }
if [ "$rss_end" -gt $(( rss_start * 5 / 4 + 8192 )) ]; then
  echo "soak: FAIL RSS grew from $rss_start KiB to $rss_end KiB" >&2; fail=1
fi
exit "$fail"
