#!/usr/bin/env bash
# build-peers.sh: the lifecycle suite's peers, built or installed once and cached.
#   build-peers.sh operator VERSION   go install the KubeRay operator VERSION (v1.6.2 | v1.5.0 | v1.4.0)
#   build-peers.sh kwok               go install kwok at KWOK_VERSION
#   build-peers.sh kueue              go install Kueue's manager (cmd/kueue) at KUEUE_VERSION; also
#                                     prints, on the line before, the Kueue module's directory
#                                     (its CRDs and webhook manifests, config/components/)
#   build-peers.sh ray                the Ray venv (ray[default] + the stock images' boto pins)
# Each prints the directory holding the result on its last stdout line (the bin directory for the
# Go peers, the venv for Ray); progress and the measured cold time go to stderr. A warm call builds
# nothing. Versions come from test/peers/versions.env; the Go caches are the shared ones
# (${XDG_CACHE_HOME:-~/.cache}/rayjob-guard/go/{mod,build}), so suites share module downloads.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
peers=$(cd "$here/../peers" && pwd)
# shellcheck source=test/peers/versions.env
. "$peers/versions.env"
cache=${XDG_CACHE_HOME:-$HOME/.cache}/rayjob-guard
# shellcheck source=test/harness/harness.sh
. "$here/../harness/harness.sh"
harness_init lifecycle-peers
# shellcheck source=test/peers/go-env.sh
. "$peers/go-env.sh"

# go_install MODULE_PATH@VERSION BIN_NAME DEST_DIR
go_install() {
  local what=$1 name=$2 dest=$3
  mkdir -p "$dest" "$cache/go"
  exec 8>"$dest/.lock"
  flock 8
  if [[ -x $dest/$name && -f $dest/.rjg-built && $(<"$dest/.rjg-built") == "$what" ]]; then
    echo "$dest"
    return 0
  fi
  rjg_go_env "$cache" mod || die "cannot build $what"
  local t0
  t0=$(date +%s)
  log "building $what (cold)"
  rm -f "$dest/$name" "$dest/.rjg-built"
  GOBIN=$dest nice -n 10 "$go" install -trimpath -ldflags='-s -w' "$what" >&2 ||
    die "go install $what failed"
  [[ -x $dest/$name ]] || die "go install $what left no $dest/$name"
  printf '%s\n' "$what" >"$dest/.rjg-built"
  log "built $what in $(($(date +%s) - t0)) s"
  echo "$dest"
}

case "${1:-}" in
  operator)
    v=${2:-}
    [[ -n $v && ($v == "$KUBERAY_OPERATOR_V16" || $v == "$KUBERAY_OPERATOR_V15" ||
      $v == "$KUBERAY_OPERATOR_V14") ]] ||
      die "operator version '$v' is not pinned (KUBERAY_OPERATOR_V16=$KUBERAY_OPERATOR_V16, KUBERAY_OPERATOR_V15=$KUBERAY_OPERATOR_V15, KUBERAY_OPERATOR_V14=$KUBERAY_OPERATOR_V14)"
    go_install "github.com/ray-project/kuberay/ray-operator@$v" ray-operator "$cache/kuberay/$v/bin"
    ;;
  kwok)
    go_install "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION" kwok "$cache/kwok/$KWOK_VERSION/bin"
    ;;
  kueue)
    # -trimpath and the shared GOCACHE: the packages it shares with ray-operator v1.6.2 and the
    # Kueue conformance oracle are compiled once.
    "$peers/module-dir.sh" "sigs.k8s.io/kueue@$KUEUE_VERSION"
    go_install "sigs.k8s.io/kueue/cmd/kueue@$KUEUE_VERSION" kueue "$cache/kueue/$KUEUE_VERSION/bin"
    ;;
  ray)
    "$peers/venv.sh" "ray-$RAY_VERSION" "ray[default]==$RAY_VERSION" \
      "botocore==$RAY_STOCK_BOTOCORE_VERSION" "boto3==$RAY_STOCK_BOTO3_VERSION"
    ;;
  *) die "usage: build-peers.sh operator VERSION | kwok | kueue | ray" ;;
esac
