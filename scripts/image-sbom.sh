#!/usr/bin/env bash
# image-sbom.sh: the package metadata of the rayjob-guard runtime image, written into its root at
# build time (the Dockerfile's build stage) from that stage's dpkg database, so that scanners
# (trivy, grype/syft) and people can tell which Debian packages the image carries:
#
#   ROOTFS/var/lib/dpkg/status.d/PKG          the dpkg status stanza of each Debian package a file
#                                             of the image comes from (distroless layout; without
#                                             Conffiles, which names files the image does not have)
#   ROOTFS/var/lib/dpkg/status.d/PKG.md5sums  "MD5  PATH" for each file of PKG the image ships, PATH
#                                             where it sits in the image, MD5 the one dpkg recorded
#   ROOTFS/usr/share/doc/NAME/sbom.spdx.json  SPDX 2.3 JSON: NAME (the DESCRIBED package), which
#                                             CONTAINS the distribution (debian, OPERATING-SYSTEM),
#                                             which CONTAINS one package per Debian package (a purl
#                                             with distro and upstream qualifiers as syft writes
#                                             them, "built package from: SOURCE VERSION" as trivy
#                                             does: both scanners match Debian's advisories by the
#                                             source package)
#
# Every regular file under ROOTFS is either ours (the binary, each --ours path) or a file of an
# installed Debian package, found at the same path in this stage's filesystem, whose content has
# the checksum dpkg recorded for it (its md5sums, or Conffiles for a conffile). A file that is
# neither fails the run, as does a shipped package's file with another checksum. /lib and /usr/lib
# (likewise lib64, bin, sbin) are one directory on merged-/usr Debian while dpkg records whichever
# path the package shipped, so an owner is looked for under both spellings of the real path.
#
# usage: image-sbom.sh --rootfs DIR --name NAME --version VERSION [--revision REV]
#                      --binary PATH [--ours PATH]...          (PATHs as in the image: /etc/passwd)
#        image-sbom.sh --json-string STRING                    prints STRING as a JSON string
# env:   SOURCE_DATE_EPOCH  the SBOM's creation time (seconds); the current time when unset
set -euo pipefail
export LC_ALL=C

die() { echo "image-sbom.sh: $*" >&2; exit 1; }

# json STRING: STRING as a JSON string literal, quotes included. Backslash, quote and every
# control character are escaped; bytes >= 0x80 (UTF-8) pass through.
json() {
  local s=$1 out='' c i
  s=${s//\\/\\\\}
  s=${s//\"/\\\"}
  s=${s//$'\n'/\\n}
  s=${s//$'\t'/\\t}
  s=${s//$'\r'/\\r}
  if [[ $s =~ [[:cntrl:]] ]]; then
    for ((i = 0; i < ${#s}; i++)); do
      c=${s:i:1}
      if [[ $c == [[:cntrl:]] ]]; then printf -v c '\\u%04x' "'$c"; fi
      out+=$c
    done
    s=$out
  fi
  printf '"%s"' "$s"
}

# pct STRING: STRING percent-encoded for a purl's name or version: all but A-Z a-z 0-9 . _ ~ -
# and the ':' of a Debian epoch (the purl spec leaves ':' unencoded).
pct() {
  local s=$1 out='' c i
  for ((i = 0; i < ${#s}; i++)); do
    c=${s:i:1}
    case $c in
      [A-Za-z0-9._~:-]) out+=$c ;;
      *) printf -v c '%%%02X' "'$c"; out+=$c ;;
    esac
  done
  printf '%s' "$out"
}

if [[ ${1:-} == --json-string ]]; then
  [[ $# -eq 2 ]] || die "usage: image-sbom.sh --json-string STRING"
  json "$2"
  echo
  exit 0
fi

rootfs='' name='' version='' revision='unknown' binary=''
declare -A ours=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --rootfs | --name | --version | --revision | --binary | --ours)
      [[ $# -ge 2 && -n $2 ]] || die "$1 needs a value"
      case $1 in
        --rootfs) rootfs=${2%/} ;;
        --name) name=$2 ;;
        --version) version=$2 ;;
        --revision) revision=$2 ;;
        --binary) binary=$2 ;;
        --ours) ours[$2]=1 ;;
      esac
      shift 2
      ;;
    *) die "unknown argument '$1' (usage: see the head of this script)" ;;
  esac
done
[[ -n $rootfs && -n $name && -n $version && -n $binary ]] ||
  die "--rootfs, --name, --version and --binary are required"
[[ -d $rootfs ]] || die "$rootfs is not a directory"
[[ -f $rootfs$binary ]] || die "the binary $binary is not in $rootfs"
[[ $name =~ ^[A-Za-z0-9.-]+$ ]] || die "--name '$name' must be letters, digits, '.' and '-'"
ours[$binary]=1
for tool in dpkg-query md5sum sha256sum readelf find sort awk date; do
  command -v "$tool" >/dev/null || die "$tool is not installed"
done

# The distribution, for the purls' distro qualifier: debian-12 on bookworm.
# shellcheck disable=SC1091 # the build stage's own file
os_id=$(. /etc/os-release && echo "${ID:-}")
# shellcheck disable=SC1091
os_version=$(. /etc/os-release && echo "${VERSION_ID:-}")
[[ $os_id == debian && -n $os_version ]] || die "the build stage is not Debian (/etc/os-release: ID=$os_id)"
distro="debian-$os_version"
debian_version=$(cat /etc/debian_version)

statusd=$rootfs/var/lib/dpkg/status.d
sbom_dir=$rootfs/usr/share/doc/$name
sbom=$sbom_dir/sbom.spdx.json
rm -rf "$statusd" "$sbom" "$sbom.tmp"

# owner PATH: "PKG[:ARCH] DPKGPATH" for the installed package owning PATH's real file, where
# DPKGPATH is the path dpkg recorded (with or without the /usr prefix); nothing when none does.
owner() {
  local real cand out
  real=$(readlink -f "$1") || return 0
  local -a cands=("$real")
  case $real in
    /usr/lib/* | /usr/lib32/* | /usr/lib64/* | /usr/libx32/* | /usr/bin/* | /usr/sbin/*) cands+=("${real#/usr}") ;;
    /lib/* | /lib32/* | /lib64/* | /libx32/* | /bin/* | /sbin/*) cands+=("/usr$real") ;;
  esac
  for cand in "${cands[@]}"; do
    out=$(dpkg-query -S "$cand" 2>/dev/null | grep -v '^diversion ' || true)
    [[ -n $out ]] || continue
    [[ $out != *$'\n'* && ${out%%: /*} != *,* ]] || die "$1: more than one package owns $cand: $out"
    echo "${out%%: /*} $cand"
    return 0
  done
}

# recorded_md5 PKG DPKGPATH: the MD5 dpkg recorded for DPKGPATH of PKG (md5sums, then Conffiles).
recorded_md5() {
  local sums
  sums=$(dpkg-query --control-path "$1" md5sums 2>/dev/null || true)
  if [[ -n $sums && -f $sums ]]; then
    awk -v p="${2#/}" 'substr($0, 35) == p { print substr($0, 1, 32); found = 1; exit } END { exit !found }' "$sums" && return 0
  fi
  dpkg-query -W -f='${Conffiles}\n' "$1" | awk -v p="$2" '$1 == p && NF >= 2 { print $2; found = 1; exit } END { exit !found }'
}

declare -A pkg_of=() sums_of=() pkgq_of=()
shipped=0
while IFS= read -r path; do
  [[ -n ${ours[$path]:-} ]] && continue
  found=$(owner "$path")
  [[ -n $found ]] || die "$path is in the image but no installed Debian package owns it (nor is it --ours)"
  pkgq=${found%% *} dpkg_path=${found#* }
  [[ $(dpkg-query -W -f='${db:Status-Abbrev}' "$pkgq") == "ii " ]] || die "$pkgq (owner of $path) is not installed"
  want=$(recorded_md5 "$pkgq" "$dpkg_path") || die "dpkg has no checksum for $dpkg_path of $pkgq"
  have=$(md5sum <"$rootfs$path" | cut -c1-32)
  [[ $have == "$want" ]] || die "$path: MD5 $have, but dpkg recorded $want for $dpkg_path of $pkgq"
  pkg=${pkgq%%:*}
  if [[ -n ${pkgq_of[$pkg]:-} && ${pkgq_of[$pkg]} != "$pkgq" ]]; then
    die "$pkg is installed for two architectures (${pkgq_of[$pkg]}, $pkgq)"
  fi
  pkgq_of[$pkg]=$pkgq
  pkg_of[$path]=$pkg
  sums_of[$pkg]+="$have  ${path#/}"$'\n'
  shipped=$((shipped + 1))
done < <(find "$rootfs" -type f -printf '/%P\n' | sort)
for path in "${!ours[@]}"; do
  [[ -f $rootfs$path ]] || die "--ours $path is not a file in $rootfs"
done
mapfile -t pkgs < <(printf '%s\n' "${!pkgq_of[@]}" | sort)
[[ ${#pkgs[@]} -gt 0 ]] || die "no Debian package file in $rootfs"

# status.d: each package's stanza as dpkg holds it, less Conffiles (field and continuation lines).
mkdir -p "$statusd"
for pkg in "${pkgs[@]}"; do
  dpkg-query -s "${pkgq_of[$pkg]}" |
    awk '/^[^ \t]/ { keep = ($0 !~ /^Conffiles:/) } keep' >"$statusd/$pkg"
  printf '%s' "${sums_of[$pkg]}" >"$statusd/$pkg.md5sums"
done

# The SBOM.
field() { dpkg-query -W -f="\${$2}" "${pkgq_of[$1]}"; }
spdx_id() { local s=${2//[^A-Za-z0-9.-]/-}; printf 'SPDXRef-Package-deb-%s-%s' "$1" "$s"; }

# The packages the binary links directly (its DT_NEEDED entries, found among the shipped files).
declare -A direct=()
while IFS= read -r soname; do
  hit=''
  for path in "${!pkg_of[@]}"; do
    if [[ ${path##*/} == "$soname" ]]; then hit=${pkg_of[$path]}; break; fi
  done
  [[ -n $hit ]] || die "$binary needs $soname, which the image does not ship"
  direct[$hit]=1
done < <(readelf -d "$rootfs$binary" | awk '/\(NEEDED\)/ { v = $NF; gsub(/[][]/, "", v); print v }')

if [[ -n ${SOURCE_DATE_EPOCH:-} ]]; then
  created=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%dT%H:%M:%SZ)
else
  created=$(date -u +%Y-%m-%dT%H:%M:%SZ)
fi
bin_sha256=$(sha256sum <"$rootfs$binary" | cut -c1-64)
declare -A id_of=()
i=0
listing=''
for pkg in "${pkgs[@]}"; do
  i=$((i + 1))
  id_of[$pkg]=$(spdx_id "$i" "$pkg")
  listing+="$pkg $(field "$pkg" Version) $(field "$pkg" Architecture)"$'\n'
done
# Unique per image content and build time, stable for a rebuild with the same SOURCE_DATE_EPOCH.
doc_hash=$(printf '%s\n' "$name" "$version" "$revision" "$created" "$bin_sha256" "$listing" | sha256sum | cut -c1-32)
self_id="SPDXRef-Package-$name"
os_spdx_id="SPDXRef-OperatingSystem-debian"

mkdir -p "$sbom_dir"
{
  printf '{\n'
  printf '  "spdxVersion": "SPDX-2.3",\n'
  printf '  "dataLicense": "CC0-1.0",\n'
  printf '  "SPDXID": "SPDXRef-DOCUMENT",\n'
  printf '  "name": %s,\n' "$(json "$name-$version-image")"
  printf '  "documentNamespace": %s,\n' "$(json "https://rayjob-guard.io/spdxdocs/$name-$version-image-$doc_hash")"
  printf '  "creationInfo": {\n'
  printf '    "created": "%s",\n' "$created"
  printf '    "creators": [%s, %s],\n' "$(json "Tool: $name-image-sbom.sh-$version")" "$(json "Organization: $name")"
  printf '    "comment": %s\n' "$(json "The $name runtime image: its binary and the $distro packages whose files it ships, read from the dpkg database of the image's build stage.")"
  printf '  },\n'
  printf '  "packages": [\n'
  printf '    {\n'
  printf '      "name": %s,\n' "$(json "$name")"
  printf '      "SPDXID": %s,\n' "$(json "$self_id")"
  printf '      "versionInfo": %s,\n' "$(json "$version")"
  printf '      "supplier": %s,\n' "$(json "Organization: $name")"
  printf '      "downloadLocation": "NOASSERTION",\n'
  printf '      "filesAnalyzed": false,\n'
  printf '      "checksums": [{"algorithm": "SHA256", "checksumValue": "%s"}],\n' "$bin_sha256"
  printf '      "sourceInfo": %s,\n' "$(json "built from source revision $revision")"
  printf '      "licenseConcluded": "NOASSERTION",\n'
  printf '      "licenseDeclared": "NOASSERTION",\n'
  printf '      "copyrightText": "NOASSERTION",\n'
  printf '      "summary": %s,\n' "$(json "Validating admission webhook for KubeRay RayJobs")"
  printf '      "comment": %s,\n' "$(json "The image: $binary (the checksum is the binary's) and the Debian packages its distribution element CONTAINS; it DEPENDS_ON those whose libraries the binary links directly.")"
  printf '      "primaryPackagePurpose": "APPLICATION"\n'
  printf '    },\n'
  printf '    {\n'
  printf '      "name": "debian",\n'
  printf '      "SPDXID": "%s",\n' "$os_spdx_id"
  printf '      "versionInfo": %s,\n' "$(json "$debian_version")"
  printf '      "supplier": "Organization: Debian",\n'
  printf '      "downloadLocation": "NOASSERTION",\n'
  printf '      "filesAnalyzed": false,\n'
  printf '      "licenseConcluded": "NOASSERTION",\n'
  printf '      "licenseDeclared": "NOASSERTION",\n'
  printf '      "copyrightText": "NOASSERTION",\n'
  printf '      "comment": %s,\n' "$(json "The distribution the packages below come from ($distro, /etc/debian_version); the image holds only the files listed in /var/lib/dpkg/status.d.")"
  printf '      "primaryPackagePurpose": "OPERATING-SYSTEM"\n'
  printf '    }'
  for pkg in "${pkgs[@]}"; do
    v=$(field "$pkg" Version)
    arch=$(field "$pkg" Architecture)
    maint=$(field "$pkg" Maintainer)
    homepage=$(field "$pkg" Homepage)
    section=$(field "$pkg" Section)
    summary=$(field "$pkg" binary:Summary)
    src=$(field "$pkg" source:Package)
    srcv=$(field "$pkg" source:Version)
    # The purl's upstream qualifier, as syft writes it: the Source field, "NAME@VERSION" when it
    # names a version. Grype matches Debian's advisories by it (libssl3's are openssl's).
    upstream=$(field "$pkg" Source)
    if [[ $upstream =~ ^([^[:space:]]+)[[:space:]]*\(([^\)]+)\)$ ]]; then
      upstream="${BASH_REMATCH[1]}@${BASH_REMATCH[2]}"
    fi
    purl="pkg:deb/debian/$(pct "$pkg")@$(pct "$v")?arch=$(pct "$arch")&distro=$distro"
    [[ -z $upstream ]] || purl+="&upstream=$(pct "$upstream")"
    # The Maintainer: a team (an Organization) or a person. SPDX writes the address in parentheses.
    supplier=NOASSERTION
    if [[ $maint =~ ^(.*[^[:space:]])[[:space:]]*\<([^>]*)\>$ ]]; then
      who=${BASH_REMATCH[1]} addr=${BASH_REMATCH[2]}
      kind=Person
      [[ ! $who =~ (Team|Maintainers|Group|Project|Developers|Packagers) ]] || kind=Organization
      supplier="$kind: $who ($addr)"
    fi
    printf ',\n    {\n'
    printf '      "name": %s,\n' "$(json "$pkg")"
    printf '      "SPDXID": %s,\n' "$(json "${id_of[$pkg]}")"
    printf '      "versionInfo": %s,\n' "$(json "$v")"
    printf '      "supplier": %s,\n' "$(json "$supplier")"
    printf '      "downloadLocation": "NOASSERTION",\n'
    printf '      "filesAnalyzed": false,\n'
    if [[ $homepage =~ ^https?://[^[:space:]]+$ ]]; then
      printf '      "homepage": %s,\n' "$(json "$homepage")"
    fi
    # This exact form ("built package from: SOURCE VERSION") is how trivy learns the source
    # package, by which Debian's security tracker lists vulnerabilities.
    printf '      "sourceInfo": %s,\n' "$(json "built package from: $src $srcv")"
    printf '      "licenseConcluded": "NOASSERTION",\n'
    printf '      "licenseDeclared": "NOASSERTION",\n'
    printf '      "copyrightText": "NOASSERTION",\n'
    [[ -z $summary ]] || printf '      "summary": %s,\n' "$(json "$summary")"
    [[ $section != libs ]] || printf '      "primaryPackagePurpose": "LIBRARY",\n'
    printf '      "externalRefs": [{"referenceCategory": "PACKAGE-MANAGER", "referenceType": "purl", "referenceLocator": %s}]\n' \
      "$(json "$purl")"
    printf '    }'
  done
  printf '\n  ],\n'
  printf '  "relationships": [\n'
  printf '    {"spdxElementId": "SPDXRef-DOCUMENT", "relationshipType": "DESCRIBES", "relatedSpdxElement": %s}' "$(json "$self_id")"
  printf ',\n    {"spdxElementId": %s, "relationshipType": "CONTAINS", "relatedSpdxElement": "%s"}' \
    "$(json "$self_id")" "$os_spdx_id"
  for pkg in "${pkgs[@]}"; do
    printf ',\n    {"spdxElementId": "%s", "relationshipType": "CONTAINS", "relatedSpdxElement": %s}' \
      "$os_spdx_id" "$(json "${id_of[$pkg]}")"
  done
  for pkg in "${pkgs[@]}"; do
    [[ -n ${direct[$pkg]:-} ]] || continue
    printf ',\n    {"spdxElementId": %s, "relationshipType": "DEPENDS_ON", "relatedSpdxElement": %s}' \
      "$(json "$self_id")" "$(json "${id_of[$pkg]}")"
  done
  # Debian's own dependencies among the shipped packages: Pre-Depends and Depends, any alternative
  # that is shipped, versions and architecture qualifiers dropped.
  for pkg in "${pkgs[@]}"; do
    deps=$(dpkg-query -W -f='${Pre-Depends}, ${Depends}' "${pkgq_of[$pkg]}" |
      tr ',|' '\n' | sed -e 's/(.*)//' -e 's/:[a-z0-9-]*//' -e 's/[[:space:]]//g' | sort -u)
    while IFS= read -r dep; do
      [[ -n $dep && $dep != "$pkg" && -n ${id_of[$dep]:-} ]] || continue
      printf ',\n    {"spdxElementId": %s, "relationshipType": "DEPENDS_ON", "relatedSpdxElement": %s}' \
        "$(json "${id_of[$pkg]}")" "$(json "${id_of[$dep]}")"
    done <<<"$deps"
  done
  printf '\n  ]\n'
  printf '}\n'
} >"$sbom.tmp"
mv "$sbom.tmp" "$sbom"

echo "image-sbom.sh: $shipped file(s) of ${#pkgs[@]} Debian package(s) (${pkgs[*]}); $distro;" \
  "status.d and $(wc -c <"$sbom")-byte SPDX 2.3 SBOM ${sbom#"$rootfs"}"
