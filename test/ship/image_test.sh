#!/usr/bin/env bash
# Builds the webhook image from the repository's Dockerfile with podman (no Docker engine, no
# registry: --pull=never over a debootstrap-made Debian base), checks what scanners read in it
# (the dpkg status.d of the Debian packages it ships, their md5sums against the image's files, and
# the SPDX 2.3 SBOM, validated with spdx-tools' pyspdxtools and compared with the build stage's dpkg
# database), then runs the image's binary: `policy default`, and `serve` answering
# AdmissionReviews over TLS on loopback.
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
build_image="localhost/rayjob-guard:ship-test-build"   # the Dockerfile's build stage
ctr="rjg-ship-test-$$"
sbom_path=/usr/share/doc/rayjob-guard/sbom.spdx.json
# shellcheck source=test/harness/harness.sh
. "$(dirname "${BASH_SOURCE[0]}")/../harness/harness.sh"
need podman -- apt-get install -y podman runc debootstrap
need python3 -- it makes the venv of the SPDX validator
# shellcheck source=test/peers/versions.env
. "$here/../peers/versions.env"
: "${SPDX_TOOLS_VERSION:?SPDX_TOOLS_VERSION is not set in test/peers/versions.env}"

rm -rf "$work" && mkdir -p "$work"
cleanup() {
  podman rm -f -t 2 "$ctr" "$ctr-files" >/dev/null 2>&1 || true
}
trap cleanup EXIT

echo "== SPDX validator: spdx-tools $SPDX_TOOLS_VERSION (PyPI, cached venv)"
spdx_venv=$("$here/../peers/venv.sh" spdx-tools "spdx-tools==$SPDX_TOOLS_VERSION" | tail -n1) \
  || fail "could not make the venv of spdx-tools==$SPDX_TOOLS_VERSION (pyspdxtools)"
pyspdxtools="$spdx_venv/bin/pyspdxtools"
[ -x "$pyspdxtools" ] || fail "pyspdxtools is not in $spdx_venv"
echo "ok: $pyspdxtools"

echo "== scripts/image-sbom.sh escapes JSON strings"
tricky=$'quote" backslash\\ tab\t newline\n cr\r bell\a esc\033 del\177 caf\xc3\xa9 </script> \\u0041'
"$repo/scripts/image-sbom.sh" --json-string "$tricky" > "$work/escaped.json"
/usr/bin/python3 - "$work/escaped.json" "$tricky" <<'PY' || fail "image-sbom.sh --json-string does not round-trip through a JSON parser"
import json, sys
raw = open(sys.argv[1], "rb").read()
got = json.loads(raw.decode("utf-8"))
assert got == sys.argv[2], (got, sys.argv[2])
print(f"ok: {len(sys.argv[2])} characters with quote, backslash and control characters round-trip")
PY

"$here/debian_base.sh" "$base_image"

if podman image exists "$image"; then
  echo "previous $image: $(podman image inspect --format '{{.Size}}' "$image") bytes"
fi
echo "== podman build (Dockerfile, --pull=never, base $base_image)"
build_args=(--pull=never --layers
  --build-arg BASE_REPO="$base_repo" --build-arg BASE_TAG="$base_tag" --build-arg BUILD_JOBS=2
  --build-arg CMAKE_EXTRA_ARGS="${RJG_IMAGE_CMAKE_ARGS:-}"
  --build-arg REVISION="$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)")
start=$(date +%s)
if ! podman build "${build_args[@]}" -t "$image" -f "$repo/Dockerfile" "$repo" > "$work/build.log" 2>&1; then
  tail -n 40 "$work/build.log" >&2
  fail "podman build failed (log: $work/build.log)"
fi
echo "built $image in $(( $(date +%s) - start )) s"
grep 'image-sbom.sh:' "$work/build.log" | tail -n1 || true

size=$(podman image inspect --format '{{.Size}}' "$image")
user=$(podman image inspect --format '{{.Config.User}}' "$image")
title=$(podman image inspect --format '{{index .Config.Labels "org.opencontainers.image.title"}}' "$image")
layers=$(podman image inspect --format '{{len .RootFS.Layers}}' "$image")
echo "image size: $size bytes ($(( size / 1024 / 1024 )) MiB), $layers layer(s), user '$user', title label '$title'"
[ "$user" = "65532:65532" ] || fail "image user is '$user', want 65532:65532"
[ "$title" = "rayjob-guard" ] || fail "OCI title label missing"
[ "$size" -lt $((100 * 1024 * 1024)) ] || fail "runtime image is $size bytes; only the binary and its libraries belong there"

echo "== what scanners read: status.d, md5sums, the SPDX SBOM"
sbom_label=$(podman image inspect --format '{{index .Config.Labels "io.rayjob-guard.sbom"}}' "$image")
version_label=$(podman image inspect --format '{{index .Config.Labels "org.opencontainers.image.version"}}' "$image")
[ "$sbom_label" = "$sbom_path" ] || fail "label io.rayjob-guard.sbom is '$sbom_label', want $sbom_path"
# The expected versions come from the build stage itself, where the runtime image's packages were
# installed (the Debian base alone lacks libssl3): the image the build's first stage ended with,
# the last "--> ID" before the second stage starts (a second `--target build` would recompile
# whenever a source changed in between).
stage_id=$(awk '/^\[2\/2\] STEP 1\//{ print id; exit } /^--> /{ id = $NF }' "$work/build.log")
if [ -z "$stage_id" ] || ! podman image exists "$stage_id"; then
  fail "no build-stage image in $work/build.log (the last '--> ID' before '[2/2] STEP 1/')"
fi
podman tag "$stage_id" "$build_image"
podman run --rm "$build_image" dpkg-query -W -f '${Package}\t${Version}\t${Architecture}\t${Source}\n' libssl3 libstdc++6 \
  > "$work/expected.tsv" || fail "dpkg-query in the build stage found no libssl3 or libstdc++6"
distro="debian-$(podman run --rm "$build_image" sh -c '. /etc/os-release && echo "$VERSION_ID"')"
echo "build stage $stage_id (tagged $build_image), $distro: $(tr "\t\n" "  " < "$work/expected.tsv")"
podman create --name "$ctr-files" "$image" >/dev/null
podman export -o "$work/image.tar" "$ctr-files"
podman rm "$ctr-files" >/dev/null
mkdir "$work/rootfs" && tar -C "$work/rootfs" -xf "$work/image.tar"
sbom="$work/rootfs$sbom_path"
[ -s "$sbom" ] || fail "the image has no SBOM at $sbom_path"
"$pyspdxtools" --version SPDX-2.3 -i "$sbom" > "$work/spdx-validate.log" 2>&1 \
  || { cat "$work/spdx-validate.log" >&2; fail "pyspdxtools: $sbom_path is not valid SPDX 2.3"; }
echo "ok: pyspdxtools $SPDX_TOOLS_VERSION validates $sbom_path as SPDX 2.3"
# The validator rejects a broken copy (a relationship to an element the document lacks), so the
# pass above means something.
/usr/bin/python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); d["relationships"].append({"spdxElementId": "SPDXRef-DOCUMENT", "relationshipType": "DESCRIBES", "relatedSpdxElement": "SPDXRef-Package-absent"}); json.dump(d, open(sys.argv[2], "w"))' \
  "$sbom" "$work/sbom-broken.spdx.json"
if "$pyspdxtools" --version SPDX-2.3 -i "$work/sbom-broken.spdx.json" > "$work/spdx-broken.log" 2>&1; then
  fail "pyspdxtools accepted an SBOM with a dangling relationship; its verdict on the real one means nothing"
fi
echo "ok: pyspdxtools rejects a copy with a dangling relationship"
/usr/bin/python3 - "$work/rootfs" "$sbom_path" "$work/expected.tsv" "$distro" "$version_label" <<'PY' \
  || fail "the image's package metadata does not match its files or the build stage"
import hashlib, json, os, re, sys, urllib.parse
root, sbom_path, expected_tsv, distro, version = sys.argv[1:]
OURS = {"usr/local/bin/rayjob-guard", "etc/passwd", "etc/group"}
STATUS_D = "var/lib/dpkg/status.d"

def stanza(text):
    fields, key = {}, None
    for line in text.splitlines():
        if line[:1] in (" ", "\t") and key:
            fields[key] += "\n" + line
        elif line.strip():
            key, _, value = line.partition(":")
            fields[key] = value.strip()
    return fields

def md5(rel):
    with open(os.path.join(root, rel), "rb") as f:
        return hashlib.md5(f.read()).hexdigest()

# status.d: one stanza and one md5sums per package.
status, owned = {}, {}
for entry in sorted(os.listdir(os.path.join(root, STATUS_D))):
    path = os.path.join(root, STATUS_D, entry)
    if entry.endswith(".md5sums"):
        for line in open(path, encoding="utf-8").read().splitlines():
            digest, rel = line[:32], line[34:]
            assert re.fullmatch(r"[0-9a-f]{32}", digest) and line[32:34] == "  ", f"{entry}: bad line {line!r}"
            assert rel not in owned, f"{rel} is listed by {owned.get(rel)} and {entry}"
            owned[rel] = (entry[: -len(".md5sums")], digest)
    else:
        s = stanza(open(path, encoding="utf-8").read())
        for key in ("Package", "Status", "Architecture", "Version", "Maintainer"):
            assert s.get(key), f"status.d/{entry} has no {key}"
        assert s["Package"] == entry, f"status.d/{entry} holds {s['Package']}"
        assert s["Status"] == "install ok installed", f"{entry}: Status {s['Status']}"
        assert "Conffiles" not in s, f"{entry}: Conffiles names files the image does not have"
        status[entry] = s
for pkg in status:
    assert os.path.exists(os.path.join(root, STATUS_D, pkg + ".md5sums")), f"{pkg} has no md5sums"

# (a) libssl3 and libstdc++6, at the build stage's versions.
expected, expected_source = {}, {}
for line in open(expected_tsv).read().splitlines():
    name, ver, arch, source = line.split("\t")
    expected[name], expected_source[name] = (ver, arch), source
assert set(expected) == {"libssl3", "libstdc++6"}, expected
for name, (ver, arch) in expected.items():
    assert name in status, f"status.d has no {name}"
    got = (status[name]["Version"], status[name]["Architecture"])
    assert got == (ver, arch), f"status.d/{name}: {got}, the build stage has {(ver, arch)}"
    print(f"ok: status.d/{name}: Version {ver}, Architecture {arch}, Source {status[name].get('Source', name)}")

# (b) every file of the image is ours, metadata, or a package's file with dpkg's checksum.
files = []
for dirpath, dirnames, filenames in os.walk(root):
    for fn in filenames:
        full = os.path.join(dirpath, fn)
        if os.path.isfile(full) and not os.path.islink(full):
            files.append(os.path.relpath(full, root))
libs = 0
for rel in sorted(files):
    if rel in OURS or rel.startswith(STATUS_D + "/") or rel == sbom_path.lstrip("/"):
        continue
    assert rel in owned, f"/{rel} is in the image but in no status.d md5sums"
    pkg, digest = owned[rel]
    assert pkg in status, f"/{rel}: {pkg}.md5sums has no status.d/{pkg} stanza"
    assert md5(rel) == digest, f"/{rel}: MD5 {md5(rel)}, {pkg}.md5sums says {digest}"
    if re.search(r"\.so(\.|$)", rel):
        libs += 1
for rel, (pkg, _) in owned.items():
    assert rel in files, f"{pkg}.md5sums lists /{rel}, which the image does not have"
assert libs >= 3, f"only {libs} shared libraries found"
for rel, pkg in (("lib/x86_64-linux-gnu/libssl.so.3", "libssl3"), ("lib/x86_64-linux-gnu/libcrypto.so.3", "libssl3"),
                 ("lib/x86_64-linux-gnu/libstdc++.so.6", "libstdc++6"), ("etc/debian_version", "base-files"),
                 ("usr/lib/os-release", "base-files")):
    assert owned.get(rel, ("?",))[0] == pkg, f"/{rel} is owned by {owned.get(rel, ('nobody',))[0]}, want {pkg}"
osr = dict(l.split("=", 1) for l in open(os.path.join(root, "etc/os-release")).read().splitlines() if "=" in l)
assert osr.get("ID") == "debian" and f"debian-{osr.get('VERSION_ID', '').strip(chr(34))}" == distro, osr
print(f"ok: {len(owned)} files of {len(status)} packages ({libs} shared libraries) match their md5sums;"
      f" every other file is ours ({', '.join(sorted(OURS))}) or metadata; /etc/os-release says {distro}")

# (d) the SBOM: rayjob-guard, and exactly the status.d packages at their versions, with purls.
doc = json.load(open(os.path.join(root, sbom_path.lstrip("/")), encoding="utf-8"))
assert doc["spdxVersion"] == "SPDX-2.3" and doc["creationInfo"]["created"], doc["creationInfo"]
by_name = {p["name"]: p for p in doc["packages"]}
assert len(by_name) == len(doc["packages"]), "two SBOM packages share a name"
assert set(by_name) == set(status) | {"rayjob-guard", "debian"}, sorted(set(by_name) ^ (set(status) | {"rayjob-guard", "debian"}))
me, os_pkg = by_name["rayjob-guard"], by_name["debian"]
debian_version = open(os.path.join(root, "etc/debian_version")).read().strip()
assert os_pkg["primaryPackagePurpose"] == "OPERATING-SYSTEM" and os_pkg["versionInfo"] == debian_version, os_pkg
assert os_pkg["SPDXID"].startswith("SPDXRef-OperatingSystem"), os_pkg["SPDXID"]  # how trivy tells the OS
assert me["versionInfo"] == version, f"SBOM rayjob-guard {me['versionInfo']}, label {version}"
with open(os.path.join(root, "usr/local/bin/rayjob-guard"), "rb") as f:
    assert me["checksums"] == [{"algorithm": "SHA256", "checksumValue": hashlib.sha256(f.read()).hexdigest()}]

def purl(name, ver, arch, source):
    """The canonical purl (qualifiers sorted), with syft's upstream: the Source field, NAME@VERSION
    when it names a version."""
    q = lambda s: urllib.parse.quote(s, safe=":")
    m = re.fullmatch(r"(\S+)\s*\((.+)\)", source)
    upstream = f"{m.group(1)}@{m.group(2)}" if m else source
    return (f"pkg:deb/debian/{q(name)}@{q(ver)}?arch={q(arch)}&distro={distro}"
            + (f"&upstream={q(upstream)}" if upstream else ""))

rel = {(r["spdxElementId"], r["relationshipType"], r["relatedSpdxElement"]) for r in doc["relationships"]}
assert ("SPDXRef-DOCUMENT", "DESCRIBES", me["SPDXID"]) in rel
assert (me["SPDXID"], "CONTAINS", os_pkg["SPDXID"]) in rel, "rayjob-guard does not CONTAIN the distribution"
for name, s in status.items():
    p = by_name[name]
    want = purl(name, s["Version"], s["Architecture"], s.get("Source", ""))
    refs = [r["referenceLocator"] for r in p.get("externalRefs", []) if r["referenceType"] == "purl"]
    assert p["versionInfo"] == s["Version"], f"SBOM {name} {p['versionInfo']}, status.d {s['Version']}"
    assert refs == [want], f"SBOM {name} purls {refs}, want {want}"
    assert p["licenseConcluded"] == p["licenseDeclared"] == "NOASSERTION"
    assert p["supplier"].startswith(("Person: ", "Organization: ")), p["supplier"]
    assert (os_pkg["SPDXID"], "CONTAINS", p["SPDXID"]) in rel, f"the distribution does not CONTAIN {name}"
    src = s.get("Source", name).split(" ")[0]
    srcv = s["Source"].split("(")[1].rstrip(")") if "(" in s.get("Source", "") else s["Version"]
    assert p["sourceInfo"] == f"built package from: {src} {srcv}", (name, p["sourceInfo"])
for name, (ver, arch) in expected.items():
    p = by_name[name]
    assert p["versionInfo"] == ver and (me["SPDXID"], "DEPENDS_ON", p["SPDXID"]) in rel, name
    want = purl(name, ver, arch, expected_source[name])  # all from the build stage's dpkg-query
    assert p["externalRefs"][0]["referenceLocator"] == want, (p["externalRefs"], want)
    print(f"ok: SBOM {name} {ver}, {p['externalRefs'][0]['referenceLocator']}, rayjob-guard DEPENDS_ON it")
kinds = {}
for _, k, _ in rel:
    kinds[k] = kinds.get(k, 0) + 1
size = os.path.getsize(os.path.join(root, sbom_path.lstrip("/")))
meta = sum(os.path.getsize(os.path.join(root, STATUS_D, e)) for e in os.listdir(os.path.join(root, STATUS_D)))
print(f"sbom: {len(doc['packages'])} packages (rayjob-guard {version}, debian {debian_version}, {len(status)} Debian packages), {size} bytes,"
      f" relationships {dict(sorted(kinds.items()))}, created {doc['creationInfo']['created']}; status.d {meta} bytes")
PY

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
wait_for 5 "/readyz answering 200" curl -fsS "http://127.0.0.1:$probe_port/readyz"
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
