#!/usr/bin/env python3
"""Real botocore and boto3 from PyPI against EKS Pod Identity (the agent stand-in, agent.py), one
venv per version, and images/ray/assert-pod-identity.py's verdict on each.

usage: run.sh botocore_matrix_test.py REPO_DIR WORK_DIR

For each botocore of BOTOCORE_MATRIX (test/peers/versions.env) it measures, inside the pods'
network namespace and with tenant-a's ray-head token:

  assertion   assert-pod-identity.py run by that venv's Python: pass or fail
  fetch       a boto3 S3 client gets credentials from http://169.254.170.23/v1/credentials and
              puts an object into tenant-a's bucket (and is refused tenant-b's)
  refresh     the same client, kept, twice: the token file is rotated (a new TokenRequest token),
              the credentials expire (the agent issues them for a few seconds), the client puts
              again, then the previous token is invalidated (its bound Secret deleted, as when it
              expires) and the client puts again. The agent's log says which token each refresh
              sent.

It fails unless each row is what botocore's history says (the table in EXPECTED) and the assertion
agrees with the measured behaviour on every row (pass exactly when fetch and refresh both work).
Before the matrix it checks the stand-in itself refuses what the real agent refuses. Prints the
table as Markdown for docs/image-contract.md.
"""
import json
import os
import select
import subprocess
import sys
import time

REPO, WORK = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, ".."))
from harness import fail, pinned_versions  # noqa: E402
import podid  # noqa: E402

ASSERT = os.path.join(REPO, "images", "ray", "assert-pod-identity.py")
PROBE = os.path.join(HERE, "probe.py")
TENANT, OTHER = "tenant-a", "tenant-b"
EXPIRATION = 4  # seconds: the credentials' lifetime as the agent states it
ROTATIONS = 2
UNSUPPORTED = "Unsupported host '169.254.170.23'"

# What each botocore does (botocore's utils.py and credentials.py at each version; docs/image-contract.md):
# fetch "host" = refused before any request; refresh "stale" = the first token is sent again.
EXPECTED = {"1.29": ("fail", "host", None), "1.31": ("fail", "host", None),
            "1.32.0": ("fail", "ok", "stale"), "1.34.41": ("pass", "ok", "ok"), "newest": ("pass", "ok", "ok")}


def expected_for(version, newest):
    if version == newest:
        return EXPECTED["newest"]
    for key in (version, ".".join(version.split(".")[:2])):
        if key in EXPECTED:
            return EXPECTED[key]
    fail(f"botocore {version} of BOTOCORE_MATRIX has no expected row in {os.path.basename(__file__)}")


def curl_agent(env, token=None, path="/v1/credentials"):
    argv = ["curl", "-sS", "--max-time", "15", "-o", "-", "-w", "\n%{http_code}", f"http://{podid.netns.AGENT_HOST}{path}"]
    if token is not None:
        argv[1:1] = ["-H", f"Authorization: {token}"]
    r = subprocess.run(env.pod_argv(argv), capture_output=True, text=True, timeout=30)
    body, _, code = r.stdout.rpartition("\n")
    return int(code or 0), body


def check_agent(env):
    """The stand-in refuses what the real agent refuses, and answers the real protocol."""
    env.cluster.apply({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "notebook", "namespace": TENANT}})
    cases = [
        ("no Authorization header", None, 400),
        ("a token that is not a JWT", "not-a-token", 401),
        ("a ray-head token for the apiserver's audience", env.cluster.token(TENANT, "ray-head"), 401),
        ("a token of a service account without association",
         env.cluster.token(TENANT, "notebook", audience=podid.AUDIENCE), 403),
    ]
    for what, token, want in cases:
        code, body = curl_agent(env, token)
        if code != want:
            fail(f"agent: {what}: HTTP {code}, want {want}: {body}")
        print(f"ok: agent refuses {what}: {code} {json.loads(body)['message'][:90]}")
    code, _ = curl_agent(env, env.tokens[TENANT], path="/v1/other")
    if code != 404:
        fail(f"agent: another path answered {code}, want 404")
    code, body = curl_agent(env, env.tokens[TENANT])
    doc = json.loads(body) if code == 200 else {}
    if code != 200 or not all(doc.get(k) for k in ("AccessKeyId", "SecretAccessKey", "Token", "Expiration")):
        fail(f"agent: tenant-a's ray-head token: HTTP {code}: {body}")
    print(f"ok: agent answers tenant-a's ray-head token with STS credentials ({doc['AccessKeyId'][:6]}..., "
          f"Expiration {doc['Expiration']})")


class Probe:
    def __init__(self, env, python):
        self.env = env
        self.p = subprocess.Popen(env.pod_argv([python, PROBE, podid.S3_ENDPOINT]), env=env.pod_env(TENANT),
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def ask(self, line, timeout=60):
        mark = len(self.env.agent_requests())
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        # The probe answers every command within its client's timeouts (connect 5 s, read 10 s,
        # one attempt); a probe that dies answers nothing.
        ready, _, _ = select.select([self.p.stdout], [], [], timeout)
        if not ready:
            self.close()
            fail(f"probe: no answer to {line!r} within {timeout} s")
        out = self.p.stdout.readline()
        if not out:
            fail(f"probe exited on {line!r}: {self.p.stderr.read()[-800:]}")
        answer = json.loads(out)
        answer["agent"] = [(r["status"], r.get("tokenSha")) for r in self.env.agent_requests()[mark:]]
        return answer

    def close(self):
        if self.p.poll() is None:
            try:
                self.p.stdin.write("quit\n")
                self.p.stdin.flush()
                self.p.wait(timeout=10)
            except (BrokenPipeError, subprocess.TimeoutExpired):
                podid.netns.stop_pid(self.p.pid, "probe")


def measure(env, version, python):
    row = {"version": version}
    r = subprocess.run([python, ASSERT], capture_output=True, text=True, timeout=120)
    row["assertion"] = {0: "pass", 1: "fail"}.get(r.returncode, f"exit {r.returncode}")
    row["assertion_output"] = (r.stdout + r.stderr).strip()
    failed_checks = [ln.split()[1].rstrip(":") for ln in r.stdout.splitlines() if ln.strip().startswith("FAIL")]
    row["assertion_failed"] = failed_checks
    print(f"--- botocore {version}: assertion {row['assertion']}" + (f" ({', '.join(failed_checks)})" if failed_checks else ""))
    probe = Probe(env, python)
    try:
        a = probe.ask("client")
        if a.get("botocore") != version:
            fail(f"the {version} venv imported botocore {a.get('botocore')}")
        if not a["ok"]:
            row["fetch"] = "host" if UNSUPPORTED in a["error"] else "error"
            row["fetch_error"] = a["error"]
            row["refresh"] = None
            if a["agent"]:
                fail(f"botocore {version} failed ({a['error']}) but the agent saw requests {a['agent']}")
            print(f"fetch: {a['error'][:150]} (no request reached the agent)")
            return row
        key = f"matrix/botocore-{version}"
        a = probe.ask(f"put {env.bucket(TENANT)} {key}/first")
        if not a["ok"] or not any(s == 200 and t == env.current_token_sha(TENANT) for s, t in a["agent"]):
            fail(f"botocore {version}: first put {a}")
        env.root_s3().head_object(Bucket=env.bucket(TENANT), Key=f"{key}/first")
        row["fetch"] = "ok"
        print(f"fetch: ok, credentials from the agent (method container-role), put s3://{env.bucket(TENANT)}/{key}/first")
        a = probe.ask(f"put {env.bucket(OTHER)} {key}/cross")
        if a["ok"] or "AccessDenied" not in a["error"]:
            fail(f"botocore {version}: tenant-a's credentials were not refused tenant-b's bucket: {a}")
        print(f"boundary: tenant-a's credentials refused for s3://{env.bucket(OTHER)}: {a['error'][:80]}")
        row["refresh"] = "ok"
        row["steps"] = []
        for i in range(1, ROTATIONS + 1):
            old_secret = env.rotate(TENANT)
            old_sha, new_sha = env.token_by_secret_sha(TENANT, old_secret), env.current_token_sha(TENANT)
            time.sleep(EXPIRATION + 1)  # the credentials issued with the previous token have expired
            after_rotation = probe.ask(f"put {env.bucket(TENANT)} {key}/rotation-{i}")
            env.invalidate(TENANT, old_secret)
            after_invalid = probe.ask(f"put {env.bucket(TENANT)} {key}/rotation-{i}-old-token-invalid")
            step = {"rotation": i, "after_rotation": after_rotation, "after_invalid": after_invalid,
                    "old": old_sha, "new": new_sha}
            row["steps"].append(step)
            sent = lambda a: sorted({("new" if t == new_sha else "old" if t == old_sha else t) for _, t in a["agent"]})  # noqa: E731
            print(f"rotation {i}: expired credentials refreshed -> put {'ok' if after_rotation['ok'] else 'FAILED'}, "
                  f"token sent {sent(after_rotation)}; previous token invalidated -> put "
                  f"{'ok' if after_invalid['ok'] else 'FAILED: ' + after_invalid['error'][:120]}, token sent {sent(after_invalid)}")
            if not after_rotation["agent"] or not after_invalid["agent"]:
                fail(f"botocore {version}: a put after the credentials expired did not refresh them: {step}")
            if after_rotation["ok"] and after_invalid["ok"] and all(
                    t == new_sha for a in (after_rotation, after_invalid) for _, t in a["agent"]):
                continue
            if after_rotation["ok"] and not after_invalid["ok"] and all(
                    t == old_sha for a in (after_rotation, after_invalid) for _, t in a["agent"]) \
                    and any(s == 401 for s, _ in after_invalid["agent"]):
                row["refresh"] = "stale"
                row["refresh_error"] = after_invalid["error"]
                break
            row["refresh"] = "other"
            break
        return row
    finally:
        probe.close()


def describe(row):
    fetch = {"ok": "gets credentials", "host": f"fails: `{UNSUPPORTED}` before any request",
             "error": f"fails: {row.get('fetch_error', '')[:80]}"}[row["fetch"]]
    refresh = {None: "-", "ok": f"works across {ROTATIONS} rotations: each refresh sends the new token",
               "stale": ("works while the first token is valid, then fails: every refresh still sends the "
                         "first token, which the agent refuses (401, `CredentialRetrievalError`)"),
               "other": "unexpected (see the log)"}[row["refresh"]]
    checks = f"fail ({', '.join(row['assertion_failed'])})" if row["assertion"] == "fail" else row["assertion"]
    return f"| {row['version']} | {checks} | {fetch} | {refresh} |"


def main():
    pins = pinned_versions()
    matrix = [pair.split(":") for pair in pins["BOTOCORE_MATRIX"].split(",")]
    newest = matrix[-1][0]
    t0 = time.monotonic()
    venvs = {bc: os.path.join(podid.venv(REPO, f"botocore-{bc}", f"botocore=={bc}", f"boto3=={b3}"), "bin", "python")
             for bc, b3 in matrix}
    print(f"venvs ready in {time.monotonic() - t0:.0f} s: {', '.join(f'botocore {bc} / boto3 {b3}' for bc, b3 in matrix)}")
    rows = []
    with podid.PodIdentityEnv(REPO, WORK, expiration_seconds=EXPIRATION) as env:
        check_agent(env)
        for bc, _ in matrix:
            rows.append(measure(env, bc, venvs[bc]))
    print("\n| botocore | assertion | first fetch | refresh after rotation and expiry |\n|---|---|---|---|")
    for row in rows:
        print(describe(row))
    print()
    problems = []
    for row in rows:
        want = expected_for(row["version"], newest)
        got = (row["assertion"], row["fetch"], row["refresh"])
        if got != want:
            problems.append(f"botocore {row['version']}: (assertion, fetch, refresh) = {got}, want {want}")
        works = row["fetch"] == "ok" and row["refresh"] == "ok"
        if (row["assertion"] == "pass") != works:
            problems.append(f"botocore {row['version']}: the assertion says {row['assertion']} but Pod Identity "
                            f"{'works' if works else 'does not work'}:\n{row['assertion_output']}")
        if row["fetch"] == "host" and "169.254.170.23 (EKS Pod Identity agent) is missing" not in row["assertion_output"]:
            problems.append(f"botocore {row['version']}: the assertion does not name the missing host:\n{row['assertion_output']}")
        if row["refresh"] == "stale" and "token-refresh" not in row["assertion_failed"]:
            problems.append(f"botocore {row['version']}: refresh fails but the assertion's token-refresh check passed")
    if problems:
        fail("\n".join(problems))
    print(f"PASS: {len(rows)} botocore versions; the assertion agrees with the real behaviour on every one")


if __name__ == "__main__":
    podid.exit_on_signals()
    main()
