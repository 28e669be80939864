#!/usr/bin/env bash
# Soak test: holds load on `rayjob-guard serve` for a while and changes its world every few
# minutes.
#
# usage: bench/soak.sh [--minutes 30] [--rotate-every 3] [--rate R] [--connections 16]
#                      [--payload typical] [--out FILE.md]
# Env: RJG_BIN (default: the newest build*/rayjob-guard).
#
# 1. Starts serve (core 0) with a policy file and certificates laid out as a kubelet Secret
#    volume does (tls.crt -> ..data/tls.crt, ..data -> a generation directory), so a rotation
#    swaps certificate and key in one atomic rename.
# 2. Measures the maximum rate with a 10 s wrk run (core 1), unless --rate is given; the soak
#    rate is half of it.
# 3. Runs wrk for --minutes at that rate (each connection paces itself with wrk's delay()), and
#    every --rotate-every minutes re-mints the serving certificate (same CA) and makes a valid
#    policy edit (maxBackoffLimit 2 <-> 3, atomically). RSS is sampled every 5 s.
# 4. Reports requests, errors (non-2xx + socket errors; must be 0), p50/p99, the reloads the
#    server logged, and RSS over time (one row per rotation period). Exits 1 on errors, no
#    rotation at all, a missed reload, an error-level log line, or RSS not flat: the largest RSS
#    of the last period above the largest of the first period (allocator arenas warm up in it,
#    and it holds the first rotation) x 1.10 + 4 MiB.
set -euo pipefail
# shellcheck source=bench/peers/bench-lib.sh
. "$(dirname "$0")/peers/bench-lib.sh"
harness_init soak colon

minutes=30 every=3 rate="" conns=16 payload=typical out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --minutes) minutes="${2:?}"; shift 2 ;;
    --rotate-every) every="${2:?}"; shift 2 ;;
    --rate) rate="${2:?}"; shift 2 ;;
    --connections) conns="${2:?}"; shift 2 ;;
    --payload) payload="${2:?}"; shift 2 ;;
    --out) out="${2:?}"; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
[[ "$minutes" =~ ^[0-9]+$ && "$minutes" -ge 2 ]] || die "--minutes must be a whole number >= 2"
[[ "$every" =~ ^[0-9]+$ && "$every" -ge 1 && "$every" -lt "$minutes" ]] ||
  die "--rotate-every must be a whole number of minutes >= 1 and below --minutes"
need wrk taskset python3 curl openssl
repo=$(bl_repo)
bin=$(bl_find_rjg)
[ -x "$bin" ] || die "no rayjob-guard executable (build it or set RJG_BIN)"
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
"$bin" policy default >"$work/policy.yaml" || die "rayjob-guard policy default failed"
grep -q 'maxBackoffLimit: 2' "$work/policy.yaml" || die "the default policy has no 'maxBackoffLimit: 2' line to edit"
edit_policy() {  # edit_policy N: maxBackoffLimit alternates 3, 2, 3, ...
  local v=$(( $1 % 2 == 1 ? 3 : 2 ))
  sed -E "s/maxBackoffLimit: [0-9]+/maxBackoffLimit: $v/" "$work/policy.yaml" >"$work/policy.yaml.tmp"
  mv "$work/policy.yaml.tmp" "$work/policy.yaml"
}

python3 "$repo/bench/peers/make-reviews.py" "$work/payloads" >/dev/null
body="$work/payloads/$payload.json"
[ -f "$body" ] || die "no payload '$payload' (small, typical, large)"
bl_write_lua "$work"

bl_start_rjg "$work" "$bin" --threads 1 --policy "$work/policy.yaml" --log-format json
url="https://127.0.0.1:$RJG_PORT/validate"
curl -s --cacert "$work/ca/ca.crt" -H 'Content-Type: application/json' --data-binary @"$body" "$url" |
  grep -q '"allowed":true' || die "the soak payload is not allowed by the default policy"

if [ -z "$rate" ]; then
  bl_wrk "$work/max.txt" "$body" "$url" 10 "$conns" post.lua
  read -r max_rps _ max_p99 _ max_errs < <(bl_parse_wrk "$work/max.txt")
  rate=$(python3 -c "print(max(1, int(float('$max_rps') / 2)))")
  echo "soak: maximum ${max_rps} req/s (p99 ${max_p99} ms, errors ${max_errs}); soaking at ${rate} req/s" >&2
fi
# Each connection waits `delay` ms between its requests: conns * 1000 / delay ~= rate.
delay=$(python3 -c "print(max(0, int($conns * 1000 / $rate)))")
sed "s/^wrk.method = \"POST\"$/wrk.method = \"POST\"\nfunction delay() return $delay end/" "$work/post.lua" >"$work/paced.lua"

# RSS sampler: "seconds-since-the-load-started KiB" every 5 s.
t0=$(date +%s)
( while kill -0 "$RJG_PID" 2>/dev/null; do
    echo "$(( $(date +%s) - t0 )) $(bl_rss_kb "$RJG_PID")" >>"$work/rss.txt"; sleep 5
  done ) &
BL_PIDS+=($!)
rss_start=$(bl_rss_kb "$RJG_PID")

# Every --rotate-every minutes, while the load runs: a new certificate generation and a policy
# edit.
( n=1
  while [ $(( n * every )) -lt "$minutes" ]; do
    wait_s=$(( t0 + n * every * 60 - $(date +%s) ))
    [ "$wait_s" -le 0 ] || sleep "$wait_s"
    mint_generation "$n"
    edit_policy "$n"
    echo "$(( $(date +%s) - t0 )) rotation $n" >>"$work/rotations.txt"
    n=$(( n + 1 ))
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
# RSS over time, one row per rotation period (the largest sample in it).
period=$(( every * 60 ))
# Samples taken after the load ended are left out.
rss_rows=$(awk -v p="$period" -v e="$(( minutes * 60 ))" -v r="$work/rotations.txt" '
  BEGIN { while ((getline line < r) > 0) { split(line, f, " "); rot[int(f[1] / p)]++ } }
  $1 >= e { next }
  { k = int($1 / p); if (!(k in m) || $2 > m[k]) m[k] = $2; if (k > last) last = k }
  END { done = 0
        for (k = 0; k <= last; k++) { if (!(k in m)) continue; done += rot[k]
          printf "| %d-%d | %.1f | %d |\n", k * p / 60, (k + 1) * p / 60, m[k] / 1024, done } }' \
  "$work/rss.txt")
rss_first=$(awk -v p="$period" '$1 < p && $2 > m {m = $2} END {print m + 0}' "$work/rss.txt")
rss_last=$(awk -v p="$period" -v e="$(( minutes * 60 ))" '$1 >= e - p && $1 < e && $2 > m {m = $2} END {print m + 0}' "$work/rss.txt")
rss_bound=$(( rss_first * 11 / 10 + 4096 ))

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
| rotations | certificate and policy every ${every} min |
| target rate (half the measured maximum${max_rps:+ of ${max_rps}}) | ${rate} req/s |
| achieved | ${rps} req/s, ${requests} requests |
| errors (non-2xx + socket) | ${errs} |
| latency p50 / p99 | ${p50} ms / ${p99} ms |
| certificate rotations / reloads logged | ${rotations} / ${cert_reloads} |
| policy edits / reloads logged | ${rotations} / ${policy_reloads} |
| error-level log lines | ${error_lines} |
| RSS start / end / max | $((rss_start / 1024)) MiB / $((rss_end / 1024)) MiB / $((rss_max / 1024)) MiB |
| RSS flat: max of the last ${every} min <= max of the first ${every} min x 1.10 + 4 MiB | $((rss_last / 1024)) MiB <= $((rss_bound / 1024)) MiB: $([ "$rss_last" -le "$rss_bound" ] && echo yes || echo no) |
| serving the last certificate at the end | $([ "$served" = "$last" ] && echo yes || echo no) |

| minutes | RSS MiB (max in the period) | rotations done by its end |
|---|---:|---:|
$rss_rows
EOF
)
echo "$table"
[ -z "$out" ] || echo "$table" >"$out"

fail=0
[ "$alive" = yes ] || { echo "soak: FAIL serve died" >&2; fail=1; }
[ "$errs" = 0 ] || { echo "soak: FAIL $errs errors" >&2; fail=1; }
[ "$requests" -gt 0 ] || { echo "soak: FAIL no requests" >&2; fail=1; }
[ "$rotations" -ge 1 ] || { echo "soak: FAIL no rotation happened" >&2; fail=1; }
[ "$cert_reloads" -ge "$rotations" ] || { echo "soak: FAIL $rotations rotations but $cert_reloads certificate reloads" >&2; fail=1; }
[ "$policy_reloads" -ge "$rotations" ] || { echo "soak: FAIL $rotations policy edits but $policy_reloads reloads" >&2; fail=1; }
[ "$error_lines" = 0 ] || { echo "soak: FAIL error-level log lines:" >&2; grep -E '"level":"(error|critical)"' "$work/rjg.log" | head -5 >&2; fail=1; }
[ "$served" = "$last" ] || { echo "soak: FAIL the server does not serve the last certificate" >&2; fail=1; }
if [ "$rss_last" -gt "$rss_bound" ]; then
  echo "soak: FAIL RSS not flat: $rss_last KiB in the last ${every} min, above $rss_bound KiB (first ${every} min: $rss_first KiB)" >&2; fail=1
fi
exit "$fail"
