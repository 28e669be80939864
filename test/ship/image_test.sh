#!/usr/bin/env bash
# Builds the webhook image from the repository's Dockerfile with podman (no Docker engine, no
# registry: --pull=never over a debootstrap-made Debian base), then runs the image's binary:
# `policy default`, and `serve` answering AdmissionReviews over TLS on loopback.
#
# usage: image_test.sh REPO_DIR WORK_DIR
# env:   RJG_IMAGE_CMAKE_ARGS  extra CMake settings for the build stage (default none)
set -euo pipefail
repo="$(cd "${1:?usage: image_test.sh REPO_DIR WORK_DIR}" && pwd)"
work="${2:?usage: image_test.sh REPO_DIR WORK_DIR}"
here="$(cd "$(dirname "$0")" && pwd)"
export CONTAINERS_CONF="$repo/containers.conf"
base_repo="localhost/rayjob-guard/debian" base_tag="bookworm"
base_image="$base_repo:$base_tag"
image="localhost/rayjob-guard:ship-test"
ctr="rjg-ship-test-$$"
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v podman >/dev/null || fail "podman is not installed (apt-get install -y podman runc debootstrap)"

rm -rf "$work" && mkdir -p "$work"
cleanup() {
  podman rm -f -t 2 "$ctr" >/dev/null 2>&1 || true
}
trap cleanup EXIT

"$here/debian_base.sh" "$base_image"

echo "== podman build (Dockerfile, --pull=never, base $base_image)"
start=$(date +%s)
if ! podman build --pull=never --layers \
    --build-arg BASE_REPO="$base_repo" --build-arg BASE_TAG="$base_tag" --build-arg BUILD_JOBS=2 \
    --build-arg CMAKE_EXTRA_ARGS="${RJG_IMAGE_CMAKE_ARGS:-}" \
    --build-arg REVISION="$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)" \
    -t "$image" -f "$repo/Dockerfile" "$repo" > "$work/build.log" 2>&1; then
  tail -n 40 "$work/build.log" >&2
  fail "podman build failed (log: $work/build.log)"
fi
echo "built $image in $(( $(date +%s) - start )) s"

size=$(podman image inspect --format '{{.Size}}' "$image")
user=$(podman image inspect --format '{{.Config.User}}' "$image")
title=$(podman image inspect --format '{{index .Config.Labels "org.opencontainers.image.title"}}' "$image")
layers=$(podman image inspect --format '{{len .RootFS.Layers}}' "$image")
echo "image size: $size bytes ($(( size / 1024 / 1024 )) MiB), $layers layer(s), user '$user', title label '$title'"
[ "$user" = "65532:65532" ] || fail "image user is '$user', want 65532:65532"
[ "$title" = "rayjob-guard" ] || fail "OCI title label missing"
[ "$size" -lt $((100 * 1024 * 1024)) ] || fail "runtime image is $size bytes; only the binary and its libraries belong there"

echo "== no shell in the runtime image"
if podman run --rm --entrypoint /bin/sh "$image" -c true > /dev/null 2>&1; then
  fail "/bin/sh runs inside the image"
fi
echo "ok: /bin/sh is absent"

echo "== rayjob-guard version / policy default"
podman run --rm "$image" version | tee "$work/version.txt"
grep -q '^rayjob-guard ' "$work/version.txt" || fail "version output unexpected"
podman run --rm "$image" policy default > "$work/policy.yaml" || fail "'policy default' exited non-zero"
/usr/bin/python3 - "$work/policy.yaml" <<'PY' || fail "'policy default' did not print a Policy"
import sys, yaml
doc = yaml.safe_load(open(sys.argv[1]))
assert isinstance(doc, dict) and doc.get("kind") == "Policy" and doc.get("apiVersion") == "rayjob-guard.io/v1", doc
print("ok: policy default prints kind Policy,", "lifecycle.mode =", doc["lifecycle"]["mode"])
PY

echo "== serve over TLS (host network, loopback, port 0 + port file)"
"$repo/certs/mint-certs.sh" --out "$work/certs" --san IP:127.0.0.1 --san DNS:localhost >/dev/null
# The container runs as 65532: give it readable copies, never loosen the originals.
mkdir -m 0755 "$work/mnt" "$work/mnt/tls" && mkdir -m 0777 "$work/mnt/run"
cp "$work/certs/tls.crt" "$work/certs/tls.key" "$work/mnt/tls/" && chmod 0644 "$work/mnt/tls/"*
podman run -d --name "$ctr" --network host \
  -v "$work/mnt/tls:/etc/rayjob-guard/tls:ro" -v "$work/mnt/run:/run/rjg" \
  --read-only --cap-drop ALL --security-opt no-new-privileges \
  "$image" serve --tls-cert /etc/rayjob-guard/tls/tls.crt --tls-key /etc/rayjob-guard/tls/tls.key \
  --listen 127.0.0.1:0 --probe-listen 127.0.0.1:0 --port-file /run/rjg/ports.json --log-format json >/dev/null
for _ in $(seq 1 100); do
  [ -s "$work/mnt/run/ports.json" ] && break
  [ "$(podman inspect --format '{{.State.Running}}' "$ctr")" = "true" ] || break
  sleep 0.1
done
[ -s "$work/mnt/run/ports.json" ] || { podman logs "$ctr" >&2 || true; fail "serve wrote no port file"; }
https_port=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["https"])' "$work/mnt/run/ports.json")
probe_port=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["probe"])' "$work/mnt/run/ports.json")
echo "serve listening: https $https_port, probes $probe_port"
for _ in $(seq 1 50); do
  curl -fsS "http://127.0.0.1:$probe_port/readyz" >/dev/null 2>&1 && break
  sleep 0.1
done
curl -fsS "http://127.0.0.1:$probe_port/readyz" >/dev/null || fail "/readyz never answered 200"
echo "ok: /readyz 200"

review() {  # review RAYJOB_YAML NAMESPACE OUT -> POSTs an AdmissionReview for the object
  /usr/bin/python3 - "$1" "$2" > "$work/review.json" <<'PY'
import json, sys, uuid, yaml
obj = yaml.safe_load(open(sys.argv[1]))
obj["metadata"]["namespace"] = sys.argv[2]
print(json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {
    "uid": str(uuid.uuid4()), "kind": {"group": "ray.io", "version": "v1", "kind": "RayJob"},
    "resource": {"group": "ray.io", "version": "v1", "resource": "rayjobs"},
    "name": obj["metadata"]["name"], "namespace": sys.argv[2], "operation": "CREATE",
    "userInfo": {"username": "ship-test", "groups": ["system:authenticated"]},
    "object": obj, "oldObject": None, "dryRun": False}}))
PY
  curl -sS --cacert "$work/certs/ca.crt" --http1.1 -X POST -H 'Content-Type: application/json' \
    --data-binary @"$work/review.json" -o "$3" -w '%{http_code}' \
    "https://127.0.0.1:$https_port/validate?timeout=5s"
}
check_reply() {  # check_reply OUT WANT_ALLOWED
  /usr/bin/python3 - "$work/review.json" "$1" "$2" <<'PY'
import json, sys
req = json.load(open(sys.argv[1])); rep = json.load(open(sys.argv[2])); want = sys.argv[3] == "true"
assert rep.get("apiVersion") == "admission.k8s.io/v1" and rep.get("kind") == "AdmissionReview", rep
r = rep["response"]
assert r["uid"] == req["request"]["uid"], "uid not echoed"
assert r["allowed"] is want, f"allowed={r['allowed']} want {want}: {r.get('status')}"
assert "patch" not in r and "patchType" not in r
msg = (r.get("status") or {}).get("message", "")
print(f"ok: allowed={r['allowed']} uid echoed" + (f"; message: {msg[:160]}" if msg else ""))
PY
}
code=$(review "$repo/manifests/tenant/rayjobs/deletion-rules.yaml" tenant-a "$work/allow.json")
[ "$code" = 200 ] || fail "POST /validate answered HTTP $code"
check_reply "$work/allow.json" true || fail "compliant RayJob was not allowed"
code=$(review "$repo/manifests/tenant/rayjobs/broken-no-reap.yaml" tenant-a "$work/deny.json")
[ "$code" = 200 ] || fail "POST /validate answered HTTP $code"
check_reply "$work/deny.json" false || fail "broken RayJob was not denied"

echo "== SIGTERM: the server exits by itself"
start=$(date +%s)
podman stop -t 30 "$ctr" >/dev/null
exit_code=$(podman inspect --format '{{.State.ExitCode}}' "$ctr")
echo "stopped after $(( $(date +%s) - start )) s, exit code $exit_code"
[ "$exit_code" = 0 ] || fail "serve exited $exit_code after SIGTERM (137 = it ignored SIGTERM and was killed)"
echo "PASS: image built ($(( size / 1024 / 1024 )) MiB), policy default and serve work inside it"
