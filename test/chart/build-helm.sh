#!/usr/bin/env bash
# build-helm.sh: build the Helm CLI pinned in test/peers/versions.env (HELM_VERSION) from the Go
# module proxy with `go install`, and cache it.
#
# Usage: test/chart/build-helm.sh
#   Prints the path of the helm binary on its last line of stdout; progress goes to stderr.
#
# Where things go (RJG_CACHE overrides the root, default ${XDG_CACHE_HOME:-$HOME/.cache}/rayjob-guard):
#   $RJG_CACHE/helm-$HELM_VERSION/bin/helm
#   $RJG_CACHE/go/mod, $RJG_CACHE/go/build   the Go caches shared by every Go peer
# A warm run builds nothing: the binary is kept while `helm version` reports the pin. A lock file
# serialises concurrent runs.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test/peers/versions.env
. "$here/../peers/versions.env"
# shellcheck source=test/harness/harness.sh
. "$here/../harness/harness.sh"
harness_init build-helm
[[ $# -eq 0 ]] || { sed -n '2,12p' "$0" >&2; exit 2; }
[[ -n ${HELM_VERSION:-} ]] || die "HELM_VERSION is not set in test/peers/versions.env"

cache=${RJG_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rayjob-guard}
bin_dir=$cache/helm-$HELM_VERSION/bin
helm=$bin_dir/helm
mkdir -p "$bin_dir"
major=${HELM_VERSION%%.*}   # v3 or v4: the module path carries the major version

is_pinned() { [[ -x $helm ]] && "$helm" version --template '{{.Version}}' 2>/dev/null | grep -qx "$HELM_VERSION"; }
if is_pinned; then
  log "cached: helm $HELM_VERSION in $bin_dir"
  echo "$helm"; exit 0
fi

exec 9>"$cache/.build-helm.lock"
flock -w 1800 9 || die "timed out after 1800 s waiting for the build lock $cache/.build-helm.lock"
if is_pinned; then echo "$helm"; exit 0; fi

# shellcheck source=test/peers/go-env.sh
. "$here/../peers/go-env.sh"
rjg_go_env "$cache" mod || die "cannot build helm"
export GOBIN=$bin_dir
start=$SECONDS
log "go install helm.sh/helm/$major/cmd/helm@$HELM_VERSION (cold: several minutes)"
# Helm's version package reads its version from ldflags; set it so `helm version` reports the pin.
nice -n 10 "$go" install -trimpath \
  -ldflags="-s -w -X helm.sh/helm/$major/internal/version.version=$HELM_VERSION" \
  "helm.sh/helm/$major/cmd/helm@$HELM_VERSION"
is_pinned || die "built $helm but it does not report $HELM_VERSION: $("$helm" version 2>&1 | head -n1)"
log "built helm $HELM_VERSION in $((SECONDS - start)) s"
echo "$helm"
