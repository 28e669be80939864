#!/usr/bin/env bash
# images/ray/assert-pod-identity.py against three botocore packages: Debian's python3-botocore
# (1.29.x, must fail on all three checks), a fixture with Pod Identity and the token-refresh fix
# (must pass), and a fixture with the host and token file but no refresh fix (must fail on refresh).
# usage: botocore_assert_test.sh REPO_DIR
set -euo pipefail
repo="$(cd "${1:?usage: botocore_assert_test.sh REPO_DIR}" && pwd)"
here="$(cd "$(dirname "$0")" && pwd)"
assert="$repo/images/ray/assert-pod-identity.py"
py=/usr/bin/python3   # Debian's interpreter: another python3 on PATH may bring its own botocore
# shellcheck source=test/harness/harness.sh
. "$(dirname "${BASH_SOURCE[0]}")/../harness/harness.sh"

run_case() {  # run_case NAME WANT_EXIT PYTHONPATH -> output in $out
  local name="$1" want="$2" path="$3" rc=0
  out="$(PYTHONPATH="$path" PYTHONDONTWRITEBYTECODE=1 "$py" "$assert" 2>&1)" || rc=$?
  echo "--- $name (exit $rc)"; echo "$out"
  [ "$rc" = "$want" ] || fail "$name: exit $rc, want $want"
}

"$py" -c 'import botocore' 2>/dev/null || fail "Debian's python3-botocore is not installed (apt-get install -y python3-boto3)"
run_case "Debian python3-botocore" 1 ""
echo "$out" | grep -q "botocore 1\.29\." || fail "expected Debian's botocore 1.29.x"
for check in hosts token-file token-refresh; do
  echo "$out" | grep -q "FAIL $check" || fail "Debian botocore: check $check did not fail"
done
echo "$out" | grep -q "169.254.170.23 (EKS Pod Identity agent) is missing" || fail "message does not name the missing host"
echo "$out" | grep -q "install botocore>=1.34.41" || fail "message does not say what to do"

run_case "fixture with Pod Identity and token refresh" 0 "$here/fixtures/botocore-pod-identity"
echo "$out" | grep -q "fixture-pod-identity" || fail "the fixture package was not the one inspected"
[ "$(echo "$out" | grep -c '^  ok ')" = 3 ] || fail "expected three passing checks"

run_case "fixture without the refresh fix" 1 "$here/fixtures/botocore-no-refresh"
echo "$out" | grep -q "ok   hosts" || fail "hosts should pass for the no-refresh fixture"
echo "$out" | grep -q "ok   token-file" || fail "token-file should pass for the no-refresh fixture"
echo "$out" | grep -q "FAIL token-refresh" || fail "token-refresh should fail for the no-refresh fixture"

empty="$(mktemp -d)"; trap 'rm -rf "$empty"' EXIT
mkdir "$empty/botocore" && echo 'raise ImportError("broken botocore")' > "$empty/botocore/__init__.py"
run_case "botocore that cannot be imported" 2 "$empty"
echo "PASS: Debian 1.29 fails (3 checks), fixture passes, no-refresh fixture fails on token-refresh, broken import exits 2"
