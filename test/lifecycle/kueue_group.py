"""The kueue lifecycle group (issue 25): Kueue-managed RayJobs on ray-operator v1.6.2 and Kueue
v0.19.2, under the built-in default policy (time bounds and quota changed only), their form from
`check --fix` (shutdownAfterJobFinishes: true, the reaper's per-outcome TTL annotations), removed by
`rayjob-guard reap` (kueue.lifecycleMode reaper, the default).

  1. success: admitted by our webhook and Kueue's, runs, and everything (RayJob, RayCluster,
     submitter Job, pods, the Workload) is gone within the success bound; the namespace's
     ResourceQuota and the ClusterQueue's usage back to 0
  2. application failure: kept at least minFailedTTLSeconds (its submitter's traceback readable),
     then gone; quota back to 0
  3. pre-start failure (activeDeadlineSeconds passes with the head held not-ready): gone, quota 0
  4. queueing: a ClusterQueue that fits one RayJob; the second is admitted by both webhooks, waits
     suspended while the first runs, then runs; nothing is refused
  5. the trap, reaper stopped: the operator deletes the clusters, the RayJobs and their Jobs keep
     count/rayjobs.ray.io and count/jobs.batch, a third RayJob is refused by the ResourceQuota;
     the reaper, started again, brings the namespace back to 0

Kueue's manager runs out of cluster on loopback (its Configuration: integration ray.io/rayjob, its
webhook server on 127.0.0.1 with certificates minted here, no internal cert management, no leader
election, the visibility server off); its CRDs and its RayJob and kueue.x-k8s.io webhooks come
from the module's own config/components, registered by URL."""

import base64
import json
import os
import shutil
import time

import yaml

import lifecycle_test as lt
from harness import fail, free_port, run, wait_until
from lifecycle_test import Proc, say

KUEUE_NS = "kueue-system"
FLAVOR = "default-flavor"
QUEUE = "tenant"  # the LocalQueue of every tenant namespace
# Case 4's ClusterQueue fits one RayJob: a head (1 CPU, 2Gi) plus its K8sJobMode submitter
# (200m, 256Mi), not two.
ONE_RUN_QUOTA = {"cpu": "1500m", "memory": "3Gi"}
MAIN_QUOTA = {"cpu": "8", "memory": "16Gi"}
REFUSED_BY_QUOTA = "exceeded quota"


def kueue_webhooks(module_dir, url, ca):
    """Kueue's own webhook configurations (config/components/webhook/manifests.yaml), only the
    webhooks for RayJobs and for Kueue's API, each pointed at `url` + its path."""
    with open(os.path.join(module_dir, "config", "components", "webhook", "manifests.yaml")) as f:
        docs = [d for d in yaml.safe_load_all(f) if d]

    def ours(wh):
        for rule in wh.get("rules", []):
            groups, resources = rule.get("apiGroups", []), rule.get("resources", [])
            if "kueue.x-k8s.io" in groups or ("ray.io" in groups and "rayjobs" in resources):
                return True
        return False

    out = []
    for d in docs:
        kept = [wh for wh in d["webhooks"] if ours(wh)]
        for wh in kept:
            path = wh["clientConfig"]["service"]["path"]
            wh["clientConfig"] = {"url": url + path, "caBundle": ca}
        d["webhooks"] = kept
        d["metadata"] = {"name": "kueue-" + d["metadata"]["name"]}
        out.append(d)
    return out


def start_kueue(s):
    """Kueue's CRDs, its manager on loopback, its webhooks registered; returns when /readyz
    answers (the webhook server has started) and a labelled RayJob is suspended by its mutating
    webhook (a server-side dry run)."""
    lines = run([os.path.join(lt.HERE, "build-peers.sh"), "kueue"], timeout=3600,
                check=True).stdout.strip().splitlines()
    module_dir, bin_dir = lines[-2], lines[-1]
    crds = os.path.join(module_dir, "config", "components", "crd", "bases")
    s.kc("apply", "--server-side", "-f", crds)
    s.kc("wait", "--for=condition=Established", "--timeout=60s", "-f", crds)
    s.kc("create", "namespace", KUEUE_NS)
    certs = os.path.join(s.work, "kueue-certs")
    run([os.path.join(lt.REPO, "certs", "mint-certs.sh"), "--out", certs, "--name",
         "kueue-webhook-service", "--namespace", KUEUE_NS, "--san", "IP:127.0.0.1"], check=True)
    webhook, probe, metrics = free_port(), free_port(), free_port()
    config = {
        "apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
        "namespace": KUEUE_NS,
        "health": {"healthProbeBindAddress": f"127.0.0.1:{probe}"},
        "metrics": {"bindAddress": f"127.0.0.1:{metrics}"},
        "webhook": {"port": webhook, "host": "127.0.0.1", "certDir": certs},
        "leaderElection": {"leaderElect": False},
        # The certificates are minted here; Kueue's own rotation would write a Secret and patch
        # webhook configurations of its own names.
        "internalCertManagement": {"enable": False},
        "manageJobsWithoutQueueName": False,
        "integrations": {"frameworks": ["ray.io/rayjob"]},
        # The visibility API server (an aggregated apiserver on all interfaces) is not under test.
        "featureGates": {"VisibilityOnDemand": False},
    }
    path = os.path.join(s.work, "kueue-config.yaml")
    with open(path, "w") as f:
        yaml.safe_dump(config, f)
    # Without internal cert management Kueue reads its metrics server's pair from the fixed
    # /etc/kueue/metrics/certs. It runs in a private mount namespace whose /etc is an overlay
    # holding that directory; nothing changes on the host.
    upper = os.path.join(s.work, "kueue-etc", "upper")
    os.makedirs(os.path.join(upper, "kueue", "metrics"))
    os.makedirs(os.path.join(s.work, "kueue-etc", "work"))
    shutil.copytree(certs, os.path.join(upper, "kueue", "metrics", "certs"))
    binary = os.path.join(bin_dir, "kueue")
    cmd = ["unshare", "-m", "--propagation", "private", "sh", "-c",
           'w=$1; shift; mount -t overlay overlay -o "lowerdir=/etc,upperdir=$0,workdir=$w" /etc '
           '&& exec "$@"',
           upper, os.path.join(s.work, "kueue-etc", "work"),
           binary, "--config", path, "--zap-log-level=2"]
    p = Proc("kueue", cmd, os.path.join(s.logs, "kueue.log"),
             env=dict(os.environ, KUBECONFIG=s.kubeconfig))
    s.procs["kueue"] = p
    s.kueue = True

    # /readyz answers once the webhook server has started.
    p.wait_http_ok(f"http://127.0.0.1:{probe}/readyz", 120)
    with open(os.path.join(certs, "ca.crt"), "rb") as f:
        ca = base64.b64encode(f.read()).decode()
    for d in kueue_webhooks(module_dir, f"https://127.0.0.1:{webhook}", ca):
        s.kc("apply", "-f", "-", stdin=json.dumps(d))
    say(f"kueue {os.path.basename(os.path.dirname(bin_dir))} ready: webhooks on 127.0.0.1:{webhook} "
        f"(RayJob and kueue.x-k8s.io only), integration ray.io/rayjob")


def queues(s, cq, quota, namespaces):
    """ClusterQueue `cq` with `quota` (cpu, memory) of the one ResourceFlavor, and a LocalQueue
    `tenant` pointing at it in each namespace."""
    docs = [{"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor",
             "metadata": {"name": FLAVOR}},
            {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": cq},
             "spec": {"namespaceSelector": {"matchExpressions": [{
                 "key": "kubernetes.io/metadata.name", "operator": "In", "values": namespaces}]},
                 "resourceGroups": [{"coveredResources": ["cpu", "memory"], "flavors": [{
                     "name": FLAVOR, "resources": [{"name": k, "nominalQuota": v}
                                                   for k, v in quota.items()]}]}]}}]
    docs += [{"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
              "metadata": {"name": QUEUE, "namespace": ns}, "spec": {"clusterQueue": cq}}
             for ns in namespaces]
    s.kc("apply", "-f", "-", stdin="\n---\n".join(json.dumps(d) for d in docs))

    def active():
        st = s.kube.get(f"/apis/kueue.x-k8s.io/v1beta2/clusterqueues/{cq}").get("status", {})
        return any(c["type"] == "Active" and c["status"] == "True" for c in st.get("conditions", []))

    wait_until(active, 60, f"ClusterQueue {cq} Active", poll=0.5)


def cq_usage(s, cq):
    """(admitted + reserving workloads, {resource: total}) of ClusterQueue `cq`."""
    st = s.kube.get(f"/apis/kueue.x-k8s.io/v1beta2/clusterqueues/{cq}").get("status", {})
    totals = {}
    for fl in st.get("flavorsReservation", []) + st.get("flavorsUsage", []):
        for r in fl.get("resources", []):
            if lt.quantity(r.get("total", "0")):
                totals[r["name"]] = r["total"]
    return st.get("admittedWorkloads", 0) + st.get("reservingWorkloads", 0), totals


def wait_cq_zero(s, cq):
    wait_until(lambda: cq_usage(s, cq) == (0, {}), 60, f"ClusterQueue {cq} usage back to 0", poll=1,
               detail=lambda: f"still there: {cq_usage(s, cq)}")
    say(f"ClusterQueue {cq}: no workload admitted or reserving, usage 0")


def workloads(s, ns):
    return [w["metadata"]["name"] for w in
            s.kube.get(f"/apis/kueue.x-k8s.io/v1beta2/namespaces/{ns}/workloads")["items"]]


def kueue_rayjob(s, pol, ns, name, outcome):
    """The tenant's RayJob for `outcome`, labelled for the LocalQueue, as `check --fix` leaves it
    under the policy `pol`; the fix must not touch the label or add suspend."""
    bare = s.rayjob(ns, name, "bare", outcome, "v1.6.2")
    bare["metadata"]["labels"] = {"kueue.x-k8s.io/queue-name": QUEUE}
    rj = lt.fixed(s, pol, bare)
    spec = rj["spec"]
    ann = rj["metadata"].get("annotations", {})
    if "deletionStrategy" in spec or spec.get("shutdownAfterJobFinishes") is not True or \
            "suspend" in spec or rj["metadata"]["labels"] != bare["metadata"]["labels"]:
        fail(f"check --fix of a Kueue RayJob wrote an unexpected form: {json.dumps(spec)[:600]}")
    say(f"{name}: check --fix wrote shutdownAfterJobFinishes: true, "
        f"ttlSecondsAfterFinished {spec.get('ttlSecondsAfterFinished', 'unset (0)')}, annotations {ann}")
    return rj


def suspended(s, ns, name):
    """spec.suspend of RayJob ns/name (Kueue clears it, and false is not stored); fails if gone."""
    rj = s.get_rayjob(ns, name)
    if rj is None:
        fail(f"RayJob {ns}/{name} is gone")
    return rj["spec"].get("suspend") is True


def create_suspended(s, rj):
    """Creates the RayJob through both webhooks; Kueue's mutating webhook must have suspended it."""
    s.create(rj)
    if not suspended(s, rj["metadata"]["namespace"], rj["metadata"]["name"]):
        fail(f"{rj['metadata']['name']}: Kueue's mutating webhook did not suspend it")


def group_kueue(s):
    s.up(["v1.6.2"])
    s.start_operator("v1.6.2")
    start_kueue(s)
    # Each namespace's ResourceQuota counts two RayJobs (s.namespace): the pre-start failure runs
    # beside the other two in a namespace of its own.
    main, pre, one, trap = "lc-kueue", "lc-kueue-pre", "lc-kueue-one", "lc-kueue-trap"
    for ns in (main, pre, one, trap):
        s.namespace(ns)
    queues(s, "cq-main", MAIN_QUOTA, [main, pre, trap])
    queues(s, "cq-one", ONE_RUN_QUOTA, [one])
    pol = lt.default_policy(s, "kueue", [main, pre, one, trap])
    pkueue = yaml.safe_load(open(pol))["kueue"]
    if pkueue != {"lifecycleMode": "reaper", "manageJobsWithoutQueueName": False}:
        fail(f"the default policy's kueue section is {pkueue}, expected lifecycleMode reaper")
    s.webhook("up", pol)
    s.register()
    reaper = start_reaper(s, pol)

    say("=== kueue: shutdownAfterJobFinishes false, refused by our webhook as by Kueue's")
    bad = kueue_rayjob(s, pol, main, "kq-rules", "succeeded")
    bad["spec"]["shutdownAfterJobFinishes"] = False
    # Both webhooks refuse it; the apiserver shows whichever answers first.
    s.create(bad, expect_refused="shutdownAfterJobFinishes")
    r = s.check(pol, bad)
    if r.returncode != 1 or "[reap-self] spec.shutdownAfterJobFinishes" not in r.stdout:
        fail(f"check of {bad['metadata']['name']}: exit {r.returncode}, expected reap-self's "
             f"refusal:\n{r.stdout}{r.stderr}")

    say("=== kueue cases 1-3: success, application failure, pre-start failure, at once")
    for ns, name, outcome in ((main, "kq-ok", "succeeded"), (main, "kq-fail", "appfail"),
                              (pre, "kq-deadline", "prestart")):
        create_suspended(s, kueue_rayjob(s, pol, ns, name, outcome))
    s.usage(main, label="two Kueue RayJobs created")
    mode = "kueue reaper (policy default)"
    lt.run_concurrently(s, [
        (main, "kq-ok", "succeeded", ("Complete", "", "SUCCEEDED")),
        (main, "kq-fail", "appfail", ("Failed", "AppFailed", "FAILED")),
        (pre, "kq-deadline", "prestart (activeDeadlineSeconds)", ("Failed", "DeadlineExceeded", "")),
    ], mode=mode)
    for ns in (main, pre):
        if workloads(s, ns):
            fail(f"Workloads left in {ns}: {workloads(s, ns)}")
    wait_cq_zero(s, "cq-main")

    say("=== kueue case 4: a ClusterQueue that fits one RayJob; the second waits, then runs")
    first, second = (kueue_rayjob(s, pol, one, n, "succeeded") for n in ("kq-first", "kq-second"))
    create_suspended(s, first)
    wait_until(lambda: not suspended(s, one, "kq-first"), 60,
               "kq-first admitted by Kueue (suspend false)", poll=0.2)
    create_suspended(s, second)
    s.usage(one, label="kq-first running, kq-second queued")
    say(f"ClusterQueue cq-one (admitted + reserving workloads, usage): {cq_usage(s, 'cq-one')}")
    t0 = time.time()
    while (st := (s.get_rayjob(one, "kq-first") or {}).get("status", {})).get(
            "jobDeploymentStatus") not in ("Complete", "Failed"):
        if not suspended(s, one, "kq-second"):
            fail("kq-second was unsuspended while kq-first still holds the ClusterQueue's quota")
        if time.time() - t0 > 300:
            fail(f"kq-first did not finish in 300 s: {st}")
        time.sleep(1)
    say(f"kq-second stayed suspended for the {time.time() - t0:.0f} s kq-first ran")
    lt.run_concurrently(s, [
        (one, "kq-first", "succeeded (ClusterQueue fits one)", ("Complete", "", "SUCCEEDED")),
        (one, "kq-second", "succeeded after waiting in the queue", ("Complete", "", "SUCCEEDED")),
    ], mode=mode)
    wait_cq_zero(s, "cq-one")

    say("=== kueue case 5: the trap, reaper stopped")
    s.procs.pop("reaper", None)
    reaper.stop()
    trap_case(s, pol, trap)
    start_reaper(s, pol)
    for name in ("kq-trap-1", "kq-trap-2"):
        s.wait_gone(trap, name, f"{name} reaped once the reaper runs again",
                    lt.MAX_SUCCEEDED_TTL + 2 * lt.SLACK)
    s.wait_quota_zero(trap, " (the reaper running again)")
    wait_cq_zero(s, "cq-main")
    s.usage(trap, label="after the reaper ran again")


def start_reaper(s, pol):
    """`rayjob-guard reap` over every namespace, as the chart runs it; fails if it exits."""
    reaper = Proc("rayjob-guard reap", [s.args.binary, "reap", "--policy", pol, "--all-namespaces",
                                         "--interval", str(lt.REAP_INTERVAL),
                                         "--kubeconfig", s.kubeconfig],
                  os.path.join(s.logs, "reap-kueue.log"))
    s.procs["reaper"] = reaper
    time.sleep(1)
    if not reaper.alive():
        fail(f"rayjob-guard reap exited {reaper.p.returncode}; see {reaper.log}")
    return reaper


def trap_case(s, pol, ns):
    """Two Kueue RayJobs succeed with the reaper stopped: the operator deletes their clusters
    (shutdownAfterJobFinishes), Kueue releases their quota, and nothing deletes the RayJobs or
    their submitter Jobs, which keep the namespace's object counts: a third RayJob is refused."""
    names = ["kq-trap-1", "kq-trap-2"]
    for n in names:
        create_suspended(s, kueue_rayjob(s, pol, ns, n, "succeeded"))
    for n in names:
        st, _ = s.wait_terminal(ns, n, 300)
        if st.get("jobStatus") != "SUCCEEDED":
            fail(f"{n}: jobStatus {st.get('jobStatus')!r}, expected SUCCEEDED")

    def clusters_gone():
        return not [rc for rc in s.kube.get(f"/apis/ray.io/v1/namespaces/{ns}/rayclusters")["items"]]

    wait_until(clusters_gone, lt.SLACK * 3, f"the operator to delete the RayClusters in {ns}", poll=1)
    wait_cq_zero(s, "cq-main")
    hold = lt.MAX_SUCCEEDED_TTL + lt.SLACK
    time.sleep(hold)
    used = s.usage(ns, label=f"{hold} s after both succeeded, clusters deleted, reaper stopped")
    if used.get("count/rayjobs.ray.io") != "2" or used.get("count/jobs.batch") != "2":
        fail(f"expected the two RayJobs and their Jobs to hold the counts, quota says {used}")
    left = [x for n in names for x in s.owned_left(ns, n)]
    say(f"the trap: the operator deleted the clusters; still stored {left}")
    third = kueue_rayjob(s, pol, ns, "kq-trap-3", "succeeded")
    s.create(third, expect_refused=REFUSED_BY_QUOTA)
    s.table.append({"mode": "kueue, reaper stopped", "version": "v1.6.2", "outcome": "succeeded",
                    "result": "held count/rayjobs.ray.io and count/jobs.batch; third refused",
                    "seconds_after_end": None, "left": left})
