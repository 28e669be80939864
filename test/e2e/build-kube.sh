#!/usr/bin/env bash
# build-kube.sh: build kube-apiserver and kube-controller-manager v1.20.2 from Debian's
# `kubernetes` source package, offline, and cache both binaries outside any build tree.
#
# Usage: test/e2e/build-kube.sh [--prune-tree]
#   Prints the directory holding the two binaries on its last line of stdout.
#   Everything else (progress, timings) goes to stderr.
#
# Environment:
#   RJG_KUBE_CACHE  cache root (default ${XDG_CACHE_HOME:-$HOME/.cache}/rayjob-guard/kube-v1.20.2).
#                   Binaries land in $RJG_KUBE_CACHE/bin; the source tree in $RJG_KUBE_CACHE/work.
#   RJG_KUBE_PRUNE=1  same as --prune-tree: delete the 1.9 GB build tree after a successful build
#                   (the binaries and the 34 MB source tarball stay).
#
# Idempotent: when both binaries are cached and print `Kubernetes v1.20.2`, it does nothing but
# print where they are. A lock file serialises concurrent runs (two engineers, two ctest runs).
#
# What it does when the cache is cold:
#   1. apt-get installs what is missing: golang-go etcd-server etcd-client rsync jq dpkg-dev
#      golang-github-modern-go-reflect2-dev.
#   2. Fetches the source package with an APT configuration of its own: a private sources.list
#      holding one deb-src line built from the Debian mirror the system is configured with (read at
#      run time from /etc/apt/sources.list{,.d/*.list,.d/*.sources}). System sources are untouched.
#   3. Replaces vendor/github.com/modern-go/reflect2 with Debian's v1.0.2: the vendored v1.0.1
#      links reflect.mapiterinit with the pre-Go-1.18 signature and the apiserver crashes on the
#      first custom-resource create when built with Go 1.19.
#   4. make WHAT=cmd/kube-controller-manager, then WHAT=cmd/kube-apiserver (the second reuses
#      the Go cache inside the tree), GOPROXY=off CGO_ENABLED=0.
set -euo pipefail

readonly KUBE_VERSION=v1.20.2
readonly SRC_PKG=kubernetes
readonly TREE_NAME=kubernetes-1.20.2
readonly BINARIES=(kube-apiserver kube-controller-manager)

log() { printf '[build-kube] %s\n' "$*" >&2; }
die() { printf '[build-kube] error: %s\n' "$*" >&2; exit 1; }

prune=${RJG_KUBE_PRUNE:-0}
for arg in "$@"; do
  case "$arg" in
    --prune-tree) prune=1 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) die "unknown argument: $arg" ;;
  esac
done

cache=${RJG_KUBE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rayjob-guard/kube-${KUBE_VERSION}}
bin_dir=$cache/bin
work=$cache/work
mkdir -p "$bin_dir" "$work"

binaries_ok() {
  local b
  for b in "${BINARIES[@]}"; do
    [[ -x $bin_dir/$b ]] || return 1
    "$bin_dir/$b" --version 2>/dev/null | grep -qx "Kubernetes ${KUBE_VERSION}" || return 1
  done
}

if binaries_ok; then
  log "cached: ${BINARIES[*]} in $bin_dir"
  echo "$bin_dir"
  exit 0
fi

# One builder at a time; a second caller waits and then finds the cache warm.
exec 9>"$cache/.lock"
log "waiting for the build lock $cache/.lock"
flock 9
if binaries_ok; then
  log "cached (built by a concurrent run): $bin_dir"
  echo "$bin_dir"
  exit 0
fi

start_all=$(date +%s)

# --- 1. packages -----------------------------------------------------------------------------
need=()
for p in golang-go etcd-server etcd-client rsync jq dpkg-dev golang-github-modern-go-reflect2-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || need+=("$p")
done
if ((${#need[@]})); then
  [[ $(id -u) == 0 ]] || die "missing packages (${need[*]}); run as root or install them"
  log "installing ${need[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y "${need[@]}" >&2
fi
reflect2_src=/usr/share/gocode/src/github.com/modern-go/reflect2
[[ -f $reflect2_src/go_above_118.go ]] || die "$reflect2_src lacks go_above_118.go (need reflect2 >= 1.0.2)"

# --- 2. source package -----------------------------------------------------------------------
# The system's Debian mirror: the first URI that serves the release's own suite (not -security).
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
[[ -n $codename ]] || die "cannot read VERSION_CODENAME from /etc/os-release"
find_mirror() {
  python3 - "$codename" <<'PY'
import glob, sys
codename = sys.argv[1]
def one_line(path):
    for line in open(path, encoding="utf-8", errors="replace"):
        f = line.split("#", 1)[0].split()
        if len(f) >= 3 and f[0] in ("deb", "deb-src"):
            i = 1
            if f[i].startswith("["):  # options: [arch=amd64 signed-by=...]
                while not f[i].endswith("]"):
                    i += 1
                i += 1
            if f[i + 1] == codename:
                yield f[i]
def deb822(path):
    for stanza in open(path, encoding="utf-8", errors="replace").read().split("\n\n"):
        fields = {}
        for line in stanza.splitlines():
            if line.startswith("#") or ":" not in line or line[0].isspace():
                continue
            k, v = line.split(":", 1)
            fields[k.strip().lower()] = v.split()
        if fields.get("enabled", ["yes"])[0].lower() == "no":
            continue
        if codename in fields.get("suites", []):
            yield from fields.get("uris", [])
paths = ["/etc/apt/sources.list"] + sorted(glob.glob("/etc/apt/sources.list.d/*.list"))
for p in paths:
    try:
        for uri in one_line(p):
            print(uri); sys.exit(0)
    except OSError:
        pass
for p in sorted(glob.glob("/etc/apt/sources.list.d/*.sources")):
    for uri in deb822(p):
        print(uri); sys.exit(0)
sys.exit(1)
PY
}
mirror=$(find_mirror) || die "no Debian mirror for suite '$codename' in /etc/apt/sources.list{,.d}"
log "Debian mirror from the system's APT sources: $mirror ($codename)"

orig=$(ls "$work"/${SRC_PKG}_*.orig.tar.* 2>/dev/null | head -n1 || true)
if [[ -z $orig ]]; then
  apt_dir=$work/aptsrc
  mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/none"
  printf 'deb-src %s %s main\n' "$mirror" "$codename" >"$apt_dir/sources.list"
  cat >"$apt_dir/apt.conf" <<EOF
Dir::Etc::SourceList "$apt_dir/sources.list";
Dir::Etc::SourceParts "$apt_dir/none";
Dir::State::Lists "$apt_dir/lists";
Dir::Cache "$apt_dir/cache";
APT::Sandbox::User "root";
EOF
  log "apt-get update (private APT config: $apt_dir/apt.conf)"
  APT_CONFIG=$apt_dir/apt.conf apt-get update >&2
  log "apt-get source --download-only $SRC_PKG"
  (cd "$work" && APT_CONFIG=$apt_dir/apt.conf apt-get source --download-only "$SRC_PKG" >&2)
  orig=$(ls "$work"/${SRC_PKG}_*.orig.tar.* 2>/dev/null | head -n1 || true)
  [[ -n $orig ]] || die "apt-get source did not produce an orig tarball in $work"
fi
log "source: $orig"

tree=$work/$TREE_NAME
if [[ ! -f $tree/.rjg-unpacked ]]; then
  rm -rf "$tree"
  log "unpacking $(basename "$orig")"
  tar -C "$work" -xf "$orig"
  [[ -d $tree ]] || die "expected $tree after unpacking $orig"
  touch "$tree/.rjg-unpacked"
fi

# --- 3. reflect2 swap ------------------------------------------------------------------------
vendored=$tree/vendor/github.com/modern-go/reflect2
if [[ ! -f $vendored/go_above_118.go ]]; then
  log "replacing vendored reflect2 with Debian's $(dpkg-query -W -f='${Version}' golang-github-modern-go-reflect2-dev)"
  rsync -a --delete --exclude go.mod --exclude BUILD --exclude BUILD.bazel --exclude '*_test.go' \
    --exclude 'test/' "$reflect2_src/" "$vendored/"
fi

# --- 4. build --------------------------------------------------------------------------------
mkdir -p "$work/home"
for b in kube-controller-manager kube-apiserver; do
  if [[ -x $bin_dir/$b ]] && "$bin_dir/$b" --version 2>/dev/null | grep -qx "Kubernetes ${KUBE_VERSION}"; then
    continue
  fi
  t0=$(date +%s)
  log "make WHAT=cmd/$b (GOPROXY=off CGO_ENABLED=0)"
  (cd "$tree" && GOPROXY=off GOFLAGS='' CGO_ENABLED=0 HOME=$work/home \
    make WHAT=cmd/$b KUBE_GIT_VERSION=$KUBE_VERSION >&2)
  install -m 0755 "$tree/_output/bin/$b" "$bin_dir/$b.tmp"
  mv -f "$bin_dir/$b.tmp" "$bin_dir/$b"
  log "$b built in $(($(date +%s) - t0)) s"
done
binaries_ok || die "built binaries do not report Kubernetes ${KUBE_VERSION}"

log "total $(($(date +%s) - start_all)) s"
log "disk: $(du -sh "$tree" 2>/dev/null | cut -f1) tree, $(du -sh "$bin_dir" | cut -f1) binaries"
if [[ $prune == 1 ]]; then
  log "pruning the build tree $tree"
  rm -rf "$tree"
fi
echo "$bin_dir"
