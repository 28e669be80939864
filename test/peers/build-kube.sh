#!/usr/bin/env bash
# build-kube.sh: build the control plane the e2e suites run on, at the versions pinned in
# test/peers/versions.env, from the Go module proxy, and cache the binaries.
#
# Usage: test/peers/build-kube.sh [--dir]
#   Prints the directory holding kube-apiserver, kube-controller-manager, kube-scheduler, kubectl
#   and etcd on its last line of stdout. Progress and timings go to stderr. With --dir, prints
#   that directory and builds nothing (scripts/test.sh configures with it while this builds).
#
# Where things go (RJG_CACHE overrides the root, default ${XDG_CACHE_HOME:-$HOME/.cache}/rayjob-guard):
#   $RJG_CACHE/kube-$KUBERNETES_VERSION/bin   the five binaries
#   $RJG_CACHE/go/mod, $RJG_CACHE/go/build     the Go module and build caches (shared by every Go peer)
#
# A warm run builds nothing: each binary is kept while it reports the pinned version. A lock file
# serialises concurrent runs. The binaries come from two wrapper modules of our own,
# test/peers/kubernetes (k8s.io/kubernetes with its staging modules replaced by their published
# versions) and test/peers/etcd (etcd's server module with its siblings replaced the same way),
# built with their committed go.sum (-mod=readonly), CGO off, -trimpath and no debug info.
#
# To move to another version: change versions.env, then in the wrapper directory rewrite the
# require and replace lines (k8s.io/kubernetes v 1.N.P -> staging modules v0.N.P) and run
# `go mod tidy`; this script refuses to build when go.mod and versions.env disagree.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test/peers/versions.env
. "$here/versions.env"
# shellcheck source=test/harness/harness.sh
. "$here/../harness/harness.sh"
harness_init build-kube
[[ $# -eq 0 || ($# -eq 1 && $1 == --dir) ]] || { sed -n '2,21p' "$0" >&2; exit 2; }

cache=${RJG_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rayjob-guard}
bin_dir=$cache/kube-$KUBERNETES_VERSION/bin
if [[ ${1:-} == --dir ]]; then
  echo "$bin_dir"
  exit 0
fi
mkdir -p "$bin_dir"

kube_minor=${KUBERNETES_VERSION#v1.}
kube_minor=${kube_minor%%.*}
# name -> the line its --version prints (kubectl prints more lines; its first one is checked).
declare -A want=(
  [kube-apiserver]="Kubernetes $KUBERNETES_VERSION"
  [kube-controller-manager]="Kubernetes $KUBERNETES_VERSION"
  [kube-scheduler]="Kubernetes $KUBERNETES_VERSION"
  [kubectl]="Client Version: $KUBERNETES_VERSION"
  [etcd]="etcd Version: ${ETCD_VERSION#v}"
)
version_of() {
  case $1 in
    kubectl) "$bin_dir/kubectl" version --client 2>/dev/null | head -n1 ;;
    etcd) "$bin_dir/etcd" --version 2>/dev/null | head -n1 ;;
    *) "$bin_dir/$1" --version 2>/dev/null | head -n1 ;;
  esac
}
missing() {  # prints the binaries that are absent or report another version
  local b
  for b in "${!want[@]}"; do
    [[ -x $bin_dir/$b && $(version_of "$b") == "${want[$b]}" ]] || echo "$b"
  done
}

if [[ -z $(missing) ]]; then
  log "cached: $KUBERNETES_VERSION and etcd $ETCD_VERSION in $bin_dir"
  echo "$bin_dir"
  exit 0
fi

exec 9>"$cache/.build-kube.lock"
log "waiting for the build lock $cache/.build-kube.lock"
flock 9

# The Go toolchain and environment: the wrapper modules say `go 1.26.0` and carry their go.sum.
# shellcheck source=test/peers/go-env.sh
. "$here/go-env.sh"
rjg_go_env "$cache" readonly || die "cannot build the control plane"

# The pins: each wrapper module must require exactly what versions.env names.
pinned() {  # pinned DIR MODULE VERSION
  local got
  got=$(cd "$1" && "$go" list -m -f '{{.Version}}' "$2") || die "cannot read $2 from $1/go.mod"
  [[ $got == "$3" ]] || die "$1/go.mod requires $2 $got but versions.env pins $3"
}
pinned "$here/kubernetes" k8s.io/kubernetes "$KUBERNETES_VERSION"
pinned "$here/etcd" go.etcd.io/etcd/server/v3 "$ETCD_VERSION"

start_all=$(date +%s)
todo=$(missing | sort | tr '\n' ' ')
log "building: $todo(Go $go_version, $(nproc) cores)"

# kube-*: one go build for all four shares the compile of their common packages.
kube_pkgs=()
for b in kube-apiserver kube-controller-manager kube-scheduler kubectl; do
  [[ " $todo " == *" $b "* ]] && kube_pkgs+=("k8s.io/kubernetes/cmd/$b")
done
tmp=$bin_dir/.tmp
rm -rf "$tmp"
mkdir -p "$tmp"
if ((${#kube_pkgs[@]})); then
  t0=$(date +%s)
  stamp="-X k8s.io/component-base/version.gitVersion=$KUBERNETES_VERSION"
  stamp+=" -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$kube_minor"
  stamp+=" -X k8s.io/component-base/version.gitTreeState=clean"
  stamp+=" -X k8s.io/client-go/pkg/version.gitVersion=$KUBERNETES_VERSION"
  stamp+=" -X k8s.io/client-go/pkg/version.gitMajor=1 -X k8s.io/client-go/pkg/version.gitMinor=$kube_minor"
  (cd "$here/kubernetes" && "$go" build -trimpath -ldflags "-s -w $stamp" -o "$tmp/" "${kube_pkgs[@]}")
  log "kubernetes $KUBERNETES_VERSION (${kube_pkgs[*]##*/}) built in $(($(date +%s) - t0)) s"
fi
if [[ " $todo " == *" etcd "* ]]; then
  t0=$(date +%s)
  (cd "$here/etcd" && "$go" build -trimpath -ldflags "-s -w" -o "$tmp/etcd" go.etcd.io/etcd/server/v3)
  log "etcd $ETCD_VERSION built in $(($(date +%s) - t0)) s"
fi
for f in "$tmp"/*; do
  mv -f "$f" "$bin_dir/"
done
rmdir "$tmp"

left=$(missing | tr '\n' ' ')
[[ -z $left ]] || die "built, but these do not report the pinned version: $left"
log "total $(($(date +%s) - start_all)) s; binaries $(du -sh "$bin_dir" | cut -f1), Go caches $(du -sh "$cache/go" | cut -f1)"
echo "$bin_dir"
