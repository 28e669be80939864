# go-env.sh: sourced (never run) by every script that builds a Go peer from the module proxy.
#
#   rjg_go_env CACHE MODE
#     Sets $go to the Go toolchain: $RJG_GO, else /usr/local/go/bin/go, else go on PATH; it must
#     be Go >= 1.26 ($go_version says which, e.g. go1.26.8). Exports the environment every peer build shares, whatever the user's own go
#     env file says:
#       GOPATH=CACHE/go, GOMODCACHE=CACHE/go/mod, GOCACHE=CACHE/go/build  (nothing under $HOME)
#       GOFLAGS="-mod=MODE -buildvcs=false"   MODE: readonly (a committed go.sum) or mod
#       GOTOOLCHAIN=local                      never download another toolchain
#       CGO_ENABLED=0
#     Returns 1, with the reason on stderr, when no usable Go is found.
#
# GOPROXY and GOSUMDB are left as the machine sets them.

rjg_go_env() {
  local cache=${1:?rjg_go_env CACHE MODE} mode=${2:?rjg_go_env CACHE MODE}
  go=${RJG_GO:-}
  [[ -z $go && -x /usr/local/go/bin/go ]] && go=/usr/local/go/bin/go
  [[ -n $go ]] || go=$(command -v go || true)
  if [[ -z $go || ! -x $go ]]; then
    echo "no Go toolchain: set RJG_GO, or put go on PATH (Go >= 1.26 is needed)" >&2
    return 1
  fi
  go_version=$(GOTOOLCHAIN=local "$go" env GOVERSION 2>/dev/null) || go_version=unknown
  if ! [[ $go_version =~ ^go1\.([0-9]+) ]] || ((BASH_REMATCH[1] < 26)); then
    echo "$go is $go_version; Go >= 1.26 is needed" >&2
    return 1
  fi
  export GOPATH=$cache/go GOMODCACHE=$cache/go/mod GOCACHE=$cache/go/build \
    GOFLAGS="-mod=$mode -buildvcs=false" GOTOOLCHAIN=local CGO_ENABLED=0
}
