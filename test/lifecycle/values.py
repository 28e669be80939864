#!/usr/bin/env python3
"""The KubeRay operator's feature gates and environment, derived from Helm values files the way
the kuberay-operator chart renders them, and a check that a running operator agrees.

  values.py flags  -f VALUES [-f VALUES ...]          print one operator flag per line, then
                                                      ENV NAME=VALUE lines
  values.py check  -f VALUES [-f ...] --pid PID       exit 1, saying what differs, when the process
                                                      PID was not started with exactly those gates
                                                      and that environment, or when a later file
                                                      dropped a gate the first file states

Helm semantics: values files merge left to right, maps deep-merged and lists REPLACED
(helm/helm#3486), so an override that sets featureGates replaces the whole list. The chart renders
featureGates as --feature-gates=Name=true,... (in list order) and env as the container's env."""

import argparse
import sys

import yaml


def load(path):
    with open(path) as f:
        doc = yaml.safe_load(f)
    if doc is None:
        return {}
    if not isinstance(doc, dict):
        raise ValueError(f"{path}: a values file is a map, got {type(doc).__name__}")
    return doc


def merge(base, over):
    out = dict(base)
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = merge(out[k], v)
        else:
            out[k] = v  # scalars and lists replace
    return out


def gates_of(values, where):
    gates = values.get("featureGates")
    if gates is None:
        return []
    if not isinstance(gates, list):
        raise ValueError(f"{where}: featureGates must be a list of {{name, enabled}}")
    out = []
    for i, g in enumerate(gates):
        if not isinstance(g, dict) or not isinstance(g.get("name"), str) \
                or not isinstance(g.get("enabled"), bool):
            raise ValueError(f"{where}: featureGates[{i}] must be {{name: <string>, enabled: <bool>}}")
        out.append((g["name"], g["enabled"]))
    return out


def env_of(values, where):
    env = values.get("env")
    if env is None:
        return {}
    if not isinstance(env, list):
        raise ValueError(f"{where}: env must be a list of {{name, value}}")
    out = {}
    for i, e in enumerate(env):
        if not isinstance(e, dict) or not isinstance(e.get("name"), str) \
                or not isinstance(e.get("value"), str):
            raise ValueError(f"{where}: env[{i}] must be {{name: <string>, value: <string>}}")
        out[e["name"]] = e["value"]
    return out


def derive(files):
    """(flags, env, problems) for the operator the chart would run with these values files."""
    values = {}
    for f in files:
        values = merge(values, load(f))
    where = " + ".join(files)
    gates = gates_of(values, where)
    problems = []
    stated = {n for n, _ in gates}
    for name, _ in gates_of(load(files[0]), files[0]):
        if name not in stated:
            problems.append(
                f"{where}: featureGates no longer states {name}, which {files[0]} sets: Helm "
                f"replaces lists, so an override's featureGates must repeat every gate")
    flags = []
    if gates:
        flags.append("--feature-gates=" + ",".join(f"{n}={'true' if e else 'false'}" for n, e in gates))
    return flags, env_of(values, where), problems


def gates_flag(argv):
    for i, a in enumerate(argv):
        if a.startswith("--feature-gates="):
            return a
        if a == "--feature-gates" and i + 1 < len(argv):
            return "--feature-gates=" + argv[i + 1]
    return None


def compare(files, argv, environ, relevant=("DELETE_RAYJOB_CR_AFTER_JOB_FINISHES",)):
    """Problems, as sentences, between the values files and an operator's argv and environment."""
    flags, env, problems = derive(files)
    want = flags[0] if flags else None
    got = gates_flag(argv)
    if want != got:
        problems.append(f"feature gates: the values give {want or '(no --feature-gates)'}, "
                        f"the operator runs with {got or '(no --feature-gates)'}")
    for name in sorted(set(env) | set(relevant)):
        if env.get(name) != environ.get(name):
            problems.append(f"environment {name}: the values give {env.get(name)!r}, "
                            f"the operator runs with {environ.get(name)!r}")
    return problems


def read_proc(pid):
    with open(f"/proc/{pid}/cmdline", "rb") as f:
        argv = [a.decode() for a in f.read().split(b"\0") if a]
    with open(f"/proc/{pid}/environ", "rb") as f:
        environ = dict(a.decode().split("=", 1) for a in f.read().split(b"\0") if b"=" in a)
    return argv, environ


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("command", choices=["flags", "check"])
    ap.add_argument("-f", "--values", action="append", required=True)
    ap.add_argument("--pid", type=int)
    a = ap.parse_args()
    try:
        if a.command == "flags":
            flags, env, problems = derive(a.values)
            if problems:
                print("\n".join(problems), file=sys.stderr)
                return 1
            for fl in flags:
                print(fl)
            for k, v in env.items():
                print(f"ENV {k}={v}")
            return 0
        if a.pid is None:
            print("values.py check: --pid is required", file=sys.stderr)
            return 2
        argv, environ = read_proc(a.pid)
        problems = compare(a.values, argv, environ)
        for p in problems:
            print(f"values.py check: {p}", file=sys.stderr)
        if not problems:
            print(f"values.py check: pid {a.pid} runs with {gates_flag(argv)} and the values' environment")
        return 1 if problems else 0
    except (OSError, ValueError, yaml.YAMLError) as e:
        print(f"values.py: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
