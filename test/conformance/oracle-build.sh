# oracle-build.sh: sourced (never run) by build-oracle.sh and build-kueue-oracle.sh, the steps the
# two oracle builds share.
#
#   rjg_build_oracle NAME VERSION TIMEOUT COPY_CRDS FILE...
#     Builds the Go program made of FILE... (its go.mod and go.sum among them, all copied into one
#     directory) into ${XDG_CACHE_HOME:-$HOME/.cache}/rayjob-guard/NAME/VERSION-KEY/NAME, KEY
#     hashing FILE..., the calling script and this file, so a warm run builds nothing. Prints the
#     binary's path on its last stdout line. COPY_CRDS names a function that runs in the source
#     directory before the build, with Go's environment set: it downloads the modules whose CRDs
#     the program reads and copies them into crd/. `go build` gets TIMEOUT seconds. The Go caches
#     and flags are those of every Go peer (go-env.sh), so packages shared with a peer's build are
#     compiled once. Returns non-zero, with the reason on stderr, when the build fails.

rjg_build_oracle() {
  local name=$1 version=$2 limit=$3 copy_crds=$4
  shift 4
  local cache=${XDG_CACHE_HOME:-$HOME/.cache}/rayjob-guard key out start
  key=$(cat "$@" "$0" "${BASH_SOURCE[0]}" | sha256sum | cut -c1-16)
  out=$cache/$name/$version-$key/$name
  if [[ -x $out ]]; then
    echo "$out"
    return 0
  fi
  # shellcheck source=../peers/go-env.sh
  . "$(dirname "${BASH_SOURCE[0]}")/../peers/go-env.sh"
  rjg_go_env "$cache" mod || { echo "$(basename "$0"): cannot build $name" >&2; return 1; }
  rjg_oracle_src=$(mktemp -d)
  trap 'rm -rf "$rjg_oracle_src"' EXIT
  cp "$@" "$rjg_oracle_src/"
  mkdir -p "$(dirname "$out")" "$rjg_oracle_src/crd"
  start=$(date +%s)
  (
    cd "$rjg_oracle_src"
    "$copy_crds"
    timeout "$limit" nice -n 10 "$go" build -trimpath -ldflags='-s -w' -o "$out.tmp.$$" .
  )
  mv "$out.tmp.$$" "$out"
  echo "$(basename "$0"): built $name $version in $(($(date +%s) - start)) s" >&2
  echo "$out"
}
