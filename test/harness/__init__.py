"""The test harness every Python suite under test/ shares (stdlib only).

Offers, from its modules:
  checks:  fail(msg) (raises Failed), check(cond, msg), check_equal(got, want, what),
           checks_passed()
  tools:   need(tool, why) -> absolute path; a missing tool FAILS, it is never a skip
  procs:   run(argv, ...) -> Completed (code, stdout, stderr); command_line(argv), for a message;
           start(argv, log_path); stop(proc);
           wait_until(predicate, timeout, what); wait_for_file(path, timeout)
  serve:   mint_certs(repo, out); Serve, a `rayjob-guard serve` on 127.0.0.1 port 0;
           cluster_quota_flags(binary, work, ca), serve's flags for quota from a cluster
  net:     free_ports(n, host), free_port(host), http_ok(url): distinct free loopback ports;
           whether GET url answers 200
  cluster: Cluster(dir), the control plane of test/e2e/cluster.sh (up, down, kubectl as an
           identity, webhook.sh); read_env(path)
  https:   https_server(handler, cert, key), a TLS http.server on 127.0.0.1 port 0 for a stand-in
  pins:    pinned_versions() -> dict of test/peers/versions.env; pinned(key), one pin (an unpinned key fails)

A script in test/<area>/ imports it with a two-line prelude that puts test/ on sys.path:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    from harness import fail, need, run  # noqa: E402
(`test` itself is not a package: the name belongs to Python's own regression tests.)
"""
from .checks import Failed, check, check_equal, checks_passed, fail
from .cluster import Cluster, read_env
from .https import https_server
from .net import free_port, free_ports, http_ok
from .pins import pinned, pinned_versions
from .procs import Completed, command_line, run, start, stop, wait_for_file, wait_until
from .serve import Serve, cluster_quota_flags, mint_certs
from .tools import need

__all__ = ["Cluster", "Completed", "Failed", "Serve", "check", "check_equal", "checks_passed",
           "cluster_quota_flags", "command_line", "fail", "free_port", "free_ports", "http_ok",
           "https_server", "mint_certs", "need", "pinned", "pinned_versions", "read_env", "run", "start", "stop", "wait_for_file", "wait_until"]
