#!/usr/bin/env bash
# run.sh: the chart suite's entry point for ctest. Resolves the pinned peers (Helm from
# build-helm.sh, kubectl from test/peers/build-kube.sh; both cached, a warm call builds nothing)
# and runs one test.
#
# usage: run.sh peers|render|schema|strict|alerts|install REPO RAYJOB_GUARD WORK_DIR
set -euo pipefail
[[ $# -eq 4 ]] || { sed -n '2,6p' "$0" >&2; exit 2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
what=$1 repo=$2 binary=$3 work=$4
py=/usr/bin/python3   # Debian's, with python3-yaml
helm=$("$here/build-helm.sh" | tail -n1)
case $what in
  peers)
    kube=$("$repo/test/peers/build-kube.sh" | tail -n1)
    echo "helm: $helm ($("$helm" version --template '{{.Version}}'))"
    echo "kubectl: $kube/kubectl"
    ;;
  render)
    kube=$("$repo/test/peers/build-kube.sh" | tail -n1)
    exec "$py" "$here/render_test.py" "$repo" "$helm" "$kube/kubectl" "$binary" "$work/render" ;;
  schema) exec "$py" "$here/schema_test.py" "$repo" "$helm" "$binary" "$work/schema" ;;
  strict)
    # The pinned Kubernetes module's OpenAPI, from the Go module cache (fetched once by
    # build-kube.sh's build; offline after that).
    # shellcheck source=test/peers/versions.env
    . "$repo/test/peers/versions.env"
    k8s=$("$repo/test/peers/module-dir.sh" "k8s.io/kubernetes@$KUBERNETES_VERSION")
    exec "$py" "$here/strict_test.py" "$repo" "$helm" "$k8s/api/openapi-spec/swagger.json" "$binary" "$work/strict" ;;
  alerts) exec "$py" "$here/alerts_test.py" "$repo" "$helm" "$binary" "$work/alerts" ;;
  install) exec "$here/install_test.sh" "$repo" "$helm" "$binary" "$work/install" ;;
  *) echo "run.sh: unknown test $what" >&2; exit 2 ;;
esac
