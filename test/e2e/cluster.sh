#!/usr/bin/env bash
# cluster.sh: a throwaway Kubernetes control plane on loopback for the e2e suites, at the version
# pinned in test/peers/versions.env (built by test/peers/build-kube.sh from the Go module proxy).
#
# Usage:
#   cluster.sh up DIR [--controller-manager] [--scheduler]
#                                start etcd + kube-apiserver (+ kube-controller-manager, + kube-scheduler)
#   cluster.sh down DIR          stop everything `up` (and webhook.sh) started in DIR, by PID
#   cluster.sh namespace DIR NAME  create namespace NAME with the tenant RBAC (idempotent)
#
# `up` leaves in DIR (which it creates; it must not hold a running cluster):
#   admin.kubeconfig     user admin, group system:masters
#   notebook.kubeconfig  user tenant-a:notebook, group tenant-a              (the notebook identity)
#   api.kubeconfig       user system:serviceaccount:platform:compute-api,
#                        groups system:serviceaccounts, system:serviceaccounts:platform  (the API identity)
#   env                  shell-sourceable: KUBECTL, KUBE_BIN, KUBE_VERSION, APISERVER_URL, APISERVER_CA,
#                        ETCD_PORT, APISERVER_PORT, ETCD_PID, APISERVER_PID, CRD_KIND, CRD_FILES (:-separated)
#                        (+ KCM_PORT KCM_PID, SCHED_PORT SCHED_PID)
#   logs/                etcd.log, kube-apiserver.log, kube-controller-manager.log, kube-scheduler.log
#   bin/kubectl          $KUBECTL: the pinned kubectl with its discovery cache in DIR/kube-cache
# and a cluster holding: the KubeRay CRDs crds.sh names, installed verbatim (`kubectl create`;
# the RayJob CRD is 1.3 MB, too big for client-side apply) and Established; namespace tenant-a;
# RBAC letting both identities create/get/list/watch/update/patch/delete rayjobs (and
# create/get/list/delete configmaps) in tenant-a; the API identity may also get/update/patch
# rayjobs/status.
# With --controller-manager, kube-controller-manager runs its default controllers (garbage
# collector, job, resourcequota with a 5 s resync, namespace, serviceaccount and its token
# controller, ...) on loopback, started after the CRDs are Established so its discovery sees them.
# With --scheduler, kube-scheduler binds pods to nodes (kwok's, in the lifecycle suite).
# The apiserver signs service-account tokens (TokenRequest) and answers TokenReview.
# All ports are free ports found at run time; everything binds 127.0.0.1. If `up` fails it stops
# what it started. `down` is safe to call at any point, also after a failed `up`, and twice.
#
# Environment: RJG_KUBE_BIN (a directory with the five binaries; default: build-kube.sh's cache),
# RJG_E2E_CRD (shared|operator|minimal|auto, see crds.sh), RJG_E2E_OPERATOR_VERSION (the
# operator module of RJG_E2E_CRD=operator), RJG_E2E_MINIMAL_CRD=1 (= minimal).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test/harness/harness.sh
. "$here/../harness/harness.sh"
harness_init cluster

readonly NOTEBOOK_USER=tenant-a:notebook
readonly API_USER=system:serviceaccount:platform:compute-api

# elapsed T0_NS: seconds since T0_NS (from date +%s%N), one decimal.
elapsed() {
  local ms=$((($(date +%s%N) - $1) / 1000000))
  printf '%d.%d' $((ms / 1000)) $((ms % 1000 / 100))
}

cmd_down() {
  local dir=$1
  [[ -d $dir ]] || return 0
  # A webhook started by webhook.sh in the same DIR goes too, so one `down` cleans up everything.
  stop_pidfile rayjob-guard "$dir/webhook/serve.pid" serve
  stop_pidfile kube-scheduler "$dir/scheduler.pid" kube-scheduler
  stop_pidfile kube-controller-manager "$dir/kcm.pid" kube-controller-manager
  stop_pidfile kube-apiserver "$dir/apiserver.pid" kube-apiserver
  stop_pidfile etcd "$dir/etcd.pid" etcd
}

# wait_http URL SECONDS [curl args...]: until URL answers 200 "ok".
wait_ok() {
  local url=$1 secs=$2 i
  shift 2
  for ((i = 0; i < secs * 10; i++)); do
    if [[ $(curl -sk --max-time 2 "$@" "$url" 2>/dev/null) == ok ]]; then
      return 0
    fi
    sleep 0.1
  done
  return 1
}

write_kubeconfig() {
  local file=$1 user=$2 token=$3 url=$4 ca=$5
  umask 077
  cat >"$file" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: e2e
  cluster:
    server: $url
    certificate-authority: $ca
users:
- name: $user
  user:
    token: $token
contexts:
- name: e2e
  context: {cluster: e2e, user: "$user", namespace: tenant-a}
current-context: e2e
EOF
}

cmd_namespace() {
  local dir=$1 ns=$2
  # shellcheck source=/dev/null
  . "$dir/env"
  "$KUBECTL" --kubeconfig "$dir/admin.kubeconfig" apply -f - >/dev/null <<EOF
apiVersion: v1
kind: Namespace
metadata:
  name: $ns
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: rayjob-editor, namespace: $ns}
rules:
- apiGroups: [ray.io]
  resources: [rayjobs]
  verbs: [create, get, list, watch, update, patch, delete]
# Manifests may carry the job's code ConfigMap next to the RayJob (KubeRay's samples do).
- apiGroups: [""]
  resources: [configmaps]
  verbs: [create, get, list, delete]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: rayjob-status-writer, namespace: $ns}
rules:
- apiGroups: [ray.io]
  resources: [rayjobs/status]
  verbs: [get, update, patch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: rayjob-editors, namespace: $ns}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: rayjob-editor}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: "$NOTEBOOK_USER"}
- {kind: ServiceAccount, namespace: platform, name: compute-api}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: rayjob-status-writers, namespace: $ns}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: rayjob-status-writer}
subjects:
- {kind: ServiceAccount, namespace: platform, name: compute-api}
EOF
  log "namespace $ns with RBAC for $NOTEBOOK_USER and $API_USER"
}

# start_component BINARY PIDNAME PORT ENVPREFIX ARGS...: runs $kube_bin/BINARY against the cluster
# (admin kubeconfig, no leader election, serving on 127.0.0.1:PORT, log in logs/BINARY.log), records
# its PID in DIR/PIDNAME.pid, waits up to 60 s for /healthz, and appends ENVPREFIX_PORT and
# ENVPREFIX_PID to DIR/env. Uses cmd_up's dir and kube_bin.
start_component() {
  local binary=$1 pidname=$2 port=$3 prefix=$4
  shift 4
  "$kube_bin/$binary" --kubeconfig="$dir/admin.kubeconfig" --leader-elect=false \
    --bind-address=127.0.0.1 --secure-port="$port" --v=2 "$@" >"$dir/logs/$binary.log" 2>&1 &
  echo $! >"$dir/$pidname.pid"
  wait_ok "https://127.0.0.1:$port/healthz" 60 ||
    die "$binary not healthy after 60 s; see $dir/logs/$binary.log"
  # Healthy must mean this process: whatever else holds the port answers /healthz too.
  sleep 0.5
  kill -0 "$(<"$dir/$pidname.pid")" 2>/dev/null ||
    die "$binary exited although 127.0.0.1:$port answered; see $dir/logs/$binary.log"
  printf '%s_PORT=%s\n%s_PID=%s\n' "$prefix" "$port" "$prefix" "$(<"$dir/$pidname.pid")" >>"$dir/env"
  log "$binary healthy on 127.0.0.1:$port"
}

on_up_exit() {
  local rc=$?
  if ((rc != 0)); then
    log "up failed (exit $rc); stopping what was started"
    cmd_down "$UP_DIR"
  fi
}

cmd_up() {
  local dir=$1 with_kcm=$2 with_sched=$3
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  if [[ -f $dir/apiserver.pid ]] && kill -0 "$(<"$dir/apiserver.pid")" 2>/dev/null; then
    die "a cluster already runs in $dir; run 'cluster.sh down $dir' first"
  fi
  UP_DIR=$dir  # global: the EXIT trap runs after this function's locals are gone
  trap on_up_exit EXIT

  local kube_bin=${RJG_KUBE_BIN:-}
  if [[ -z $kube_bin ]]; then
    kube_bin=$("$here/../peers/build-kube.sh" | tail -n1)
  fi
  local b
  for b in etcd kube-apiserver kube-controller-manager kube-scheduler kubectl; do
    [[ -x $kube_bin/$b ]] || die "no $b in $kube_bin"
  done
  rm -rf "$dir/etcd-data" "$dir/pki" "$dir/kcm-certs" "$dir/sched-certs" "$dir/logs" "$dir/bin" \
    "$dir/kube-cache"
  mkdir -p "$dir/pki" "$dir/logs" "$dir/bin"
  # KUBECTL: kubectl keeping its discovery cache in DIR, not in the user's ~/.kube/cache.
  local kubectl=$dir/bin/kubectl
  printf '#!/usr/bin/env bash\nKUBECACHEDIR=%q exec %q "$@"\n' "$dir/kube-cache" "$kube_bin/kubectl" >"$kubectl"
  chmod +x "$kubectl"
  local t0 etcd_port peer_port kas_port kcm_port sched_port
  t0=$(date +%s%N)
  # All five from one bind (free_ports): ports found one at a time can repeat, and two
  # components then fight for one port while the loser's /healthz is answered by the winner.
  read -r etcd_port peer_port kas_port kcm_port sched_port <<<"$(free_ports 5)"

  # Tokens are random per cluster; they only live in DIR (mode 0600).
  local admin_token notebook_token api_token
  admin_token=$(openssl rand -hex 16)
  notebook_token=$(openssl rand -hex 16)
  api_token=$(openssl rand -hex 16)
  (
    umask 077
    printf '%s,admin,admin-uid,"system:masters"\n' "$admin_token"
    printf '%s,%s,notebook-uid,"tenant-a"\n' "$notebook_token" "$NOTEBOOK_USER"
    printf '%s,%s,compute-api-uid,"system:serviceaccounts,system:serviceaccounts:platform"\n' \
      "$api_token" "$API_USER"
  ) >"$dir/pki/tokens.csv"
  openssl genrsa -out "$dir/pki/sa.key" 2048 2>/dev/null
  openssl rsa -in "$dir/pki/sa.key" -pubout -out "$dir/pki/sa.pub" 2>/dev/null
  # A serving CA and certificate for the apiserver, so kubeconfigs verify it (no skip-verify).
  "$here/../../certs/mint-certs.sh" --out "$dir/pki/serving" --name kube-apiserver --namespace e2e \
    --san IP:127.0.0.1 --san DNS:localhost >/dev/null
  # A client CA, so that a test can log in with a client certificate it signs (e2e.logins).
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 \
    -subj /CN=e2e-client-ca -keyout "$dir/pki/client-ca.key" -out "$dir/pki/client-ca.crt" \
    2>/dev/null || die "openssl could not mint the client CA"

  "$kube_bin/etcd" --name e2e --data-dir "$dir/etcd-data" \
    --listen-client-urls "http://127.0.0.1:$etcd_port" --advertise-client-urls "http://127.0.0.1:$etcd_port" \
    --listen-peer-urls "http://127.0.0.1:$peer_port" --initial-advertise-peer-urls "http://127.0.0.1:$peer_port" \
    --initial-cluster "e2e=http://127.0.0.1:$peer_port" \
    >"$dir/logs/etcd.log" 2>&1 &
  echo $! >"$dir/etcd.pid"
  local i
  for ((i = 0; i < 200; i++)); do
    [[ $(curl -s --max-time 2 "http://127.0.0.1:$etcd_port/health" 2>/dev/null) == *'"health":"true"'* ]] && break
    sleep 0.1
  done
  ((i < 200)) || die "etcd not healthy after 20 s; see $dir/logs/etcd.log"

  "$kube_bin/kube-apiserver" --etcd-servers="http://127.0.0.1:$etcd_port" \
    --bind-address=127.0.0.1 --advertise-address=127.0.0.1 \
    --secure-port="$kas_port" \
    --tls-cert-file="$dir/pki/serving/tls.crt" --tls-private-key-file="$dir/pki/serving/tls.key" \
    --token-auth-file="$dir/pki/tokens.csv" --client-ca-file="$dir/pki/client-ca.crt" \
    --authorization-mode=RBAC \
    --service-cluster-ip-range=10.0.0.0/24 \
    --service-account-issuer=https://kubernetes.default.svc \
    --service-account-key-file="$dir/pki/sa.pub" --service-account-signing-key-file="$dir/pki/sa.key" \
    --disable-admission-plugins=ServiceAccount --enable-priority-and-fairness=false \
    --endpoint-reconciler-type=none --api-audiences=https://kubernetes.default.svc \
    >"$dir/logs/kube-apiserver.log" 2>&1 &
  echo $! >"$dir/apiserver.pid"
  local url=https://127.0.0.1:$kas_port
  wait_ok "$url/readyz" 60 --cacert "$dir/pki/serving/ca.crt" -H "Authorization: Bearer $admin_token" ||
    die "kube-apiserver not ready after 60 s; see $dir/logs/kube-apiserver.log"
  log "kube-apiserver ready at $url after $(elapsed "$t0") s"

  local ca=$dir/pki/serving/ca.crt
  write_kubeconfig "$dir/admin.kubeconfig" admin "$admin_token" "$url" "$ca"
  write_kubeconfig "$dir/notebook.kubeconfig" "$NOTEBOOK_USER" "$notebook_token" "$url" "$ca"
  write_kubeconfig "$dir/api.kubeconfig" "$API_USER" "$api_token" "$url" "$ca"

  # The CRDs, verbatim. `create`, not `apply`: the RayJob CRD is too big for the last-applied
  # annotation of client-side apply.
  local crd_list crd_kind crd_files=() f names=()
  crd_list=$("$here/crds.sh") || die "crds.sh found no CRD to install"
  crd_kind=$(head -n1 <<<"$crd_list")
  crd_kind=${crd_kind#CRD_KIND=}
  mapfile -t crd_files < <(tail -n +2 <<<"$crd_list")
  for f in "${crd_files[@]}"; do
    names+=("$("$kubectl" --kubeconfig "$dir/admin.kubeconfig" create -o name -f "$f")") ||
      die "could not create the CRD in $f"
  done
  # Poll rather than `kubectl wait`: wait exits at once with ".status.conditions accessor error"
  # when it reads a CRD before the apiserver has written any condition.
  local n i established
  for n in "${names[@]}"; do
    for ((i = 0; i < 600; i++)); do
      established=$("$kubectl" --kubeconfig "$dir/admin.kubeconfig" get "$n" \
        -o 'jsonpath={.status.conditions[?(@.type=="Established")].status}' 2>/dev/null || true)
      [[ $established == True ]] && break
      sleep 0.1
    done
    [[ $established == True ]] || die "$n is not Established after 60 s"
  done
  log "CRDs established ($crd_kind): ${names[*]}"

  cat >"$dir/env" <<EOF
KUBECTL=$kubectl
KUBE_BIN=$kube_bin
KUBE_VERSION=$("$kube_bin/kube-apiserver" --version | sed -n 's/^Kubernetes //p')
APISERVER_URL=$url
APISERVER_CA=$ca
CLIENT_CA_CRT=$dir/pki/client-ca.crt
CLIENT_CA_KEY=$dir/pki/client-ca.key
ETCD_PORT=$etcd_port
APISERVER_PORT=$kas_port
ETCD_PID=$(<"$dir/etcd.pid")
APISERVER_PID=$(<"$dir/apiserver.pid")
CRD_KIND=$crd_kind
CRD_FILES=$(IFS=:; echo "${crd_files[*]}")
EOF
  cmd_namespace "$dir" tenant-a

  if [[ $with_kcm == 1 ]]; then
    start_component kube-controller-manager kcm "$kcm_port" KCM \
      --use-service-account-credentials=false \
      --service-account-private-key-file="$dir/pki/sa.key" --root-ca-file="$ca" \
      --resource-quota-sync-period=5s --concurrent-gc-syncs=5 --cert-dir="$dir/kcm-certs"
  fi
  if [[ $with_sched == 1 ]]; then
    start_component kube-scheduler scheduler "$sched_port" SCHED \
      --authentication-kubeconfig="$dir/admin.kubeconfig" \
      --authorization-kubeconfig="$dir/admin.kubeconfig" --cert-dir="$dir/sched-certs"
  fi
  log "up in $(elapsed "$t0") s; kubeconfigs in $dir"
  trap - EXIT
}

case "${1:-}" in
  up)
    [[ $# -ge 2 ]] || die "usage: cluster.sh up DIR [--controller-manager] [--scheduler]"
    dir_arg=$2
    kcm=0 sched=0
    shift 2
    for opt in "$@"; do
      case $opt in
        --controller-manager) kcm=1 ;;
        --scheduler) sched=1 ;;
        *) die "unknown argument: $opt" ;;
      esac
    done
    cmd_up "$dir_arg" "$kcm" "$sched"
    ;;
  down)
    [[ $# -eq 2 ]] || die "usage: cluster.sh down DIR"
    cmd_down "$2"
    ;;
  namespace)
    [[ $# -eq 3 ]] || die "usage: cluster.sh namespace DIR NAME"
    cmd_namespace "$2" "$3"
    ;;
  *) die "usage: cluster.sh up DIR [--controller-manager] [--scheduler] | down DIR | namespace DIR NAME" ;;
esac
