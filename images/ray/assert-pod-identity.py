#!/usr/bin/env python3
"""Fails unless the installed botocore can use EKS Pod Identity credentials.

Run at image build time (images/ray/Dockerfile) with the image's own Python. It inspects the
botocore package that `import botocore` actually loads, not a version string:

  1. hosts:   '169.254.170.23' (the Pod Identity agent) is in
              botocore.utils.ContainerMetadataFetcher._ALLOWED_HOSTS      (botocore >= 1.32.0)
  2. token:   botocore.credentials.ContainerProvider understands
              AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE (ENV_VAR_AUTH_TOKEN_FILE)  (>= 1.32.0)
  3. refresh: the token file is re-read on every credential refresh: the fetcher returned by
              ContainerProvider._create_fetcher calls self._build_headers() inside the closure,
              and _build_headers reads the token file              (>= 1.34.41)

Without 3, the projected service-account token (rotated by the kubelet) is read once and the
credentials stop refreshing once it expires, i.e. jobs longer than the token lifetime fail.

Prints one line per check. Exit 0 when all pass, 1 when any fails, 2 when botocore cannot be
imported or inspected.
"""
import ast
import inspect
import sys
import textwrap

POD_IDENTITY_HOST = "169.254.170.23"
TOKEN_FILE_ENV = "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE"


def _source_ast(func):
    """Returns the ast.FunctionDef of `func`, or raises OSError/TypeError when there is no source."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(func)))
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return node
    raise TypeError(f"no function definition in the source of {func!r}")


def _calls_self_method(node, method):
    """True when `node` contains a call self.<method>(...)."""
    for sub in ast.walk(node):
        if (isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute)
                and sub.func.attr == method and isinstance(sub.func.value, ast.Name)
                and sub.func.value.id == "self"):
            return True
    return False


def _mentions_token_file(node):
    """True when `node` refers to ENV_VAR_AUTH_TOKEN_FILE or the literal variable name."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Attribute) and sub.attr == "ENV_VAR_AUTH_TOKEN_FILE":
            return True
        if isinstance(sub, ast.Constant) and sub.value == TOKEN_FILE_ENV:
            return True
    return False


def check_hosts(utils):
    fetcher = getattr(utils, "ContainerMetadataFetcher", None)
    hosts = getattr(fetcher, "_ALLOWED_HOSTS", None)
    if hosts is None:
        return False, "botocore.utils.ContainerMetadataFetcher._ALLOWED_HOSTS not found"
    ok = POD_IDENTITY_HOST in hosts
    return ok, f"ContainerMetadataFetcher._ALLOWED_HOSTS = {list(hosts)}" + (
        "" if ok else f"; {POD_IDENTITY_HOST} (EKS Pod Identity agent) is missing")


def check_token_file(credentials):
    provider = getattr(credentials, "ContainerProvider", None)
    if provider is None:
        return False, "botocore.credentials.ContainerProvider not found"
    value = getattr(provider, "ENV_VAR_AUTH_TOKEN_FILE", None)
    if value != TOKEN_FILE_ENV:
        return False, f"ContainerProvider.ENV_VAR_AUTH_TOKEN_FILE = {value!r}; {TOKEN_FILE_ENV} is not understood"
    build = getattr(provider, "_build_headers", None)
    if build is None:
        return False, "ContainerProvider has ENV_VAR_AUTH_TOKEN_FILE but no _build_headers()"
    try:
        node = _source_ast(build)
    except (OSError, TypeError, SyntaxError) as e:
        return False, f"cannot inspect ContainerProvider._build_headers: {e}"
    if not _mentions_token_file(node):
        return False, "ContainerProvider._build_headers never reads the token file variable"
    return True, f"ContainerProvider.ENV_VAR_AUTH_TOKEN_FILE = {value!r}, read by _build_headers()"


def check_refresh(credentials):
    provider = getattr(credentials, "ContainerProvider", None)
    create = getattr(provider, "_create_fetcher", None)
    if create is None:
        return False, "ContainerProvider._create_fetcher not found"
    try:
        node = _source_ast(create)
    except (OSError, TypeError, SyntaxError) as e:
        return False, f"cannot inspect ContainerProvider._create_fetcher: {e}"
    signature = str(inspect.signature(create))
    inner = [n for n in ast.walk(node) if n is not node and isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))]
    if any(_calls_self_method(fn, "_build_headers") for fn in inner):
        return True, f"_create_fetcher{signature}: headers (token) rebuilt by _build_headers() on every fetch"
    if _calls_self_method(node, "_build_headers"):
        return False, (f"_create_fetcher{signature} builds the headers once, outside the fetcher: "
                       "the token file is read once per provider, not on each refresh (fixed in botocore 1.34.41)")
    return False, (f"_create_fetcher{signature} takes the headers from its caller: "
                   "the token file is not re-read on refresh (fixed in botocore 1.34.41)")


def main():
    try:
        import botocore
        import botocore.credentials as credentials
        import botocore.utils as utils
    except ImportError as e:
        print(f"assert-pod-identity: cannot import botocore: {e}", file=sys.stderr)
        return 2
    version = getattr(botocore, "__version__", "unknown")
    print(f"assert-pod-identity: botocore {version} from {getattr(botocore, '__file__', '?')}")
    failed = []
    for name, check, module in (("hosts", check_hosts, utils),
                                ("token-file", check_token_file, credentials),
                                ("token-refresh", check_refresh, credentials)):
        ok, detail = check(module)
        print(f"  {'ok  ' if ok else 'FAIL'} {name}: {detail}")
        if not ok:
            failed.append(name)
    if failed:
        print(f"assert-pod-identity: botocore {version} cannot use EKS Pod Identity credentials "
              f"(failed: {', '.join(failed)}); install botocore>=1.34.41 and boto3>=1.35.0 in the image",
              file=sys.stderr)
        return 1
    print("assert-pod-identity: EKS Pod Identity supported (host, token file, token refresh)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
