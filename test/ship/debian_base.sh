#!/usr/bin/env bash
# Makes sure the local container store holds a Debian 12 base image for `podman build --pull=never`.
# The image is built once with debootstrap from the Debian mirror this host's apt already uses,
# cached as a tarball under ${XDG_CACHE_HOME:-$HOME/.cache}/rayjob-guard/ (outside any build
# tree), and imported from there on later runs.
#
# usage: debian_base.sh IMAGE_NAME      prints what it did; exit 0 when IMAGE_NAME exists
# env:   RJG_DEBIAN_MIRROR, RJG_DEBIAN_SECURITY_MIRROR override the mirrors read from apt sources.
set -euo pipefail
# shellcheck source=test/harness/harness.sh
. "$(dirname "${BASH_SOURCE[0]}")/../harness/harness.sh"
harness_init debian-base colon
image="${1:?usage: debian_base.sh IMAGE_NAME}"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/rayjob-guard"
tarball="$cache/debian-bookworm-minbase.tar"
mkdir -p "$cache"
exec 9>"$cache/debian-base.lock"
flock 9

if podman image exists "$image"; then
  echo "debian-base: $image already in the local store"
  exit 0
fi

# The first URI serving suite "bookworm" (and "bookworm-security") in the host's apt sources,
# one-line or deb822 format.
apt_uri_for_suite() {
  local suite="$1"
  {
    cat /etc/apt/sources.list 2>/dev/null || true
    cat /etc/apt/sources.list.d/*.list 2>/dev/null || true
  } | awk -v s="$suite" '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i !~ /^\[/) { if ($(i+1) == s) { print $i; exit } else break } }'
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -r "$f" ] || continue
    awk -v s="$suite" 'BEGIN { RS = ""; FS = "\n" }
      { uris = ""; ok = 0; deb = 0
        for (i = 1; i <= NF; i++) {
          if ($i ~ /^URIs:/) { sub(/^URIs:[ \t]*/, "", $i); split($i, u, /[ \t]+/); uris = u[1] }
          if ($i ~ /^Suites:/) { n = split($i, w, /[ \t]+/); for (j = 2; j <= n; j++) if (w[j] == s) ok = 1 }
          if ($i ~ /^Types:.*deb( |$)/) deb = 1
        }
        if (ok && deb && uris != "") { print uris; exit } }' "$f"
  done
}

if [ ! -s "$tarball" ]; then
  need debootstrap
  mirror="${RJG_DEBIAN_MIRROR:-$(apt_uri_for_suite bookworm | head -n1)}"
  secmirror="${RJG_DEBIAN_SECURITY_MIRROR:-$(apt_uri_for_suite bookworm-security | head -n1)}"
  [ -n "$mirror" ] || { echo "debian-base: no bookworm mirror in the apt sources; set RJG_DEBIAN_MIRROR" >&2; exit 1; }
  work=$(mktemp -d "$cache/rootfs.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  echo "debian-base: debootstrap --variant=minbase bookworm from $mirror"
  start=$(date +%s)
  debootstrap --variant=minbase bookworm "$work/rootfs" "$mirror" > "$work/debootstrap.log" 2>&1 \
    || { tail -n 20 "$work/debootstrap.log" >&2; echo "debian-base: debootstrap failed" >&2; exit 1; }
  {
    printf 'deb %s bookworm main\ndeb %s bookworm-updates main\n' "$mirror" "$mirror"
    [ -n "$secmirror" ] && printf 'deb %s bookworm-security main\n' "$secmirror"
  } > "$work/rootfs/etc/apt/sources.list"
  rm -rf "$work"/rootfs/var/lib/apt/lists/* "$work"/rootfs/var/cache/apt/*.bin \
    "$work"/rootfs/var/cache/apt/archives/*.deb "$work"/rootfs/var/log/*.log
  tar --numeric-owner -C "$work/rootfs" -cf "$tarball.tmp" .
  mv "$tarball.tmp" "$tarball"
  echo "debian-base: rootfs cached at $tarball ($(( $(date +%s) - start )) s)"
fi
podman import -q --change 'CMD ["bash"]' "$tarball" "$image" >/dev/null
echo "debian-base: imported $image from $tarball"
