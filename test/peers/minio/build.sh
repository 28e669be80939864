#!/usr/bin/env bash
# build.sh: MinIO, the S3 server of the identity tests, from the Go module proxy (a test peer only:
# MinIO is AGPL and no longer maintained upstream; it is never shipped, linked or copied into the
# project). The version is MINIO_VERSION in test/peers/versions.env, a pseudo-version the proxy
# serves (its go.mod has no replace directives, so `go install` builds it directly).
#
# usage: build.sh          prints the binary's path on its last stdout line; progress on stderr
# A warm call builds nothing: the binary is kept under
# ${XDG_CACHE_HOME:-~/.cache}/rayjob-guard/minio/MINIO_VERSION/ with the shared Go caches.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test/peers/versions.env
. "$here/../versions.env"
: "${MINIO_VERSION:?MINIO_VERSION is not set in test/peers/versions.env}"
cache=${XDG_CACHE_HOME:-$HOME/.cache}/rayjob-guard
out=$cache/minio/$MINIO_VERSION
bin=$out/minio
mkdir -p "$out"
exec 9>"$out/.lock"
flock 9
if [[ -x $bin && -f $out/.built ]]; then
  echo "$bin"
  exit 0
fi
# shellcheck source=test/peers/go-env.sh
. "$here/../go-env.sh"
rjg_go_env "$cache" mod || { echo "minio: cannot build" >&2; exit 1; }
t0=$(date +%s)
echo "[minio] building github.com/minio/minio@$MINIO_VERSION (cold: several minutes on 2 cores)" >&2
rm -f "$out/.built"
GOBIN=$out nice -n 10 "$go" install -p 2 -trimpath -ldflags='-s -w' \
  "github.com/minio/minio@$MINIO_VERSION" >&2
"$bin" --version >&2
touch "$out/.built"
echo "[minio] built in $(($(date +%s) - t0)) s" >&2
echo "$bin"
