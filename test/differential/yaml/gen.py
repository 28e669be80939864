#!/usr/bin/env python3
"""Writes a corpus of YAML files for the differential test, the same for the same --seed.

usage: gen.py --seed N --count M --out DIR

Each file is a stream of 1-4 documents of mixed kinds (RayJob, ConfigMap, Secret, Service, a bare
list or scalar, an empty one), rendered with random choices among: multi-byte UTF-8 (2, 3 and 4
bytes) in comments, keys and values; a UTF-8 byte-order mark at the start or at the start of a
later document; CRLF line ends; `---` separators with comments and `...` ends; anchors, aliases
and `<<` merge keys (one mapping or a list, before or after the explicit keys); block and flow
collections; every scalar form (ints in every base, floats, .inf/.nan, the YAML 1.1 booleans,
nulls, single- and double-quoted with escapes, literal and folded blocks with each chomping
indicator; standard and local tags). About one file in twelve is then damaged (a character dropped or doubled, a tab
indent, a key repeated) so that refusals are compared too. Python standard library only.
"""
import argparse
import os
import random

MB = ["caf\u00e9", "\u00fcber", "\u043a\u043b\u044e\u0447", "\u540d\u524d", "\u2014dash\u2014",
      "\u2713ok", "\U0001F600", "r\u00e9sum\u00e9\U0001F680", "\u20ac5", "\u00bd"]
WORDS = ["name", "image", "spec", "labels", "note", "cpu", "memory", "replicas", "entrypoint",
         "key", "value", "data", "items", "x", "y"]
PLAIN = [
    # ints in every base, signs, separators, octal forms, overflow
    "0", "42", "-7", "+12", "0x1F", "-0x10", "0o17", "017", "0b101", "1_000", "08", "0777",
    "9223372036854775807", "-9223372036854775808", "18446744073709551615",
    "18446744073709551616", "0x", "1__0",
    # floats
    "1.5", "-0.25", ".5", "1e3", "1.0", "6.02e+23", "1e20", "1E-5", "09.5", "+1.5", "-.5e2",
    "1.", "1e", "1.2.3", "1e39", "1e400",
    # non-finite
    ".inf", "-.inf", "+.inf", ".Inf", ".INF", ".nan", ".NaN", ".NAN",
    # YAML 1.1 booleans and near misses
    "true", "True", "TRUE", "false", "False", "FALSE", "yes", "Yes", "YES", "no", "No", "NO",
    "on", "On", "ON", "off", "Off", "OFF", "y", "Y", "n", "N", "tRUE", "yEs",
    # nulls and near misses
    "~", "null", "Null", "NULL", "nULL",
    # strings
    "abc", "64Gi", "500m", "2.52.0", "rayproject/ray:2.41.0", "python main.py", "2001-12-14",
    "12:30:45", "a b  c", "-dash", "x-y_z",
]
DQ = ['"plain"', '"tab\\there"', '"\\u00e9\\U0001F600\\x41"', '"line\\nnext"', '"42"', '"true"',
      '"quote \\" inside"', '""', '"\\/slash"', '"null"']
SQ = ["'single'", "'it''s'", "''", "'true'", "'0x1F'", "'~'"]
TAGGED = ["!!str 42", "!!str true", "!!int '3'", "!!int 0x1F", "!!int abc", "!!float 1",
          "!!float \"2.5\"", "!!float .inf", "!!bool yes", "!!bool 'off'", "!!bool 3", "!!null ~",
          "!!null ''", "!!binary aGVsbG8=", "!!binary \"w6k=\"", "!!binary not*base64",
          "!custom x", "! 12", "!!str", "!!int 18446744073709551615"]
# Float keys become strings through float32 (sigs.k8s.io/yaml): rounding, the %e switch, and
# finite doubles beyond float32's range, which round to an infinity.
FLOAT_KEYS = ["0.0", "-0.0", "1e6", "123456.7", "0.0001", "0.00001", "16777217.0", "1e39", "-1e39",
              "3.4028235e38", "3.4028236e38", "1e-46", "1e400", "3" * 68 + ".0", "-" + "9" * 50 + ".5"]
FLOW_SAFE = [p for p in PLAIN if not any(c in p for c in ",[]{}:#") and p != ""]


class Gen:
    def __init__(self, rng):
        self.r = rng
        self.anchors = []  # (name, is_mapping) defined so far in this document
        self.n_anchor = 0

    def mb(self):
        return self.r.choice(MB)

    def comment(self):
        return "# " + " ".join(self.r.choice(MB + WORDS) for _ in range(self.r.randint(1, 4)))

    def key(self, used, flow=False):
        for _ in range(20):
            c = self.r.random()
            if c < 0.55:
                k = self.r.choice(WORDS)
            elif c < 0.8:
                k = self.r.choice(MB)
            elif c < 0.9:
                k = self.r.choice(["1", "0x10", "on", "off", "~", "1.5", "2.0", "-3", "yes"] +
                                  FLOAT_KEYS)
            else:
                k = self.r.choice(['"quoted key"', "'k " + self.mb() + "'", '"' + self.mb() + '"'])
            if k not in used:
                used.add(k)
                return k
        k = "k%d" % len(used)
        used.add(k)
        return k

    def plain(self, flow):
        c = self.r.random()
        if c < 0.6:
            return self.r.choice(FLOW_SAFE if flow else PLAIN)
        if c < 0.8:
            return self.mb() + ("" if flow else self.r.choice(["", " " + self.mb(), " x"]))
        if c < 0.85:
            return self.r.choice(TAGGED)
        return self.r.choice(DQ + SQ)

    def anchor(self, mapping):
        if self.r.random() < 0.08:
            self.n_anchor += 1
            name = "a%d" % self.n_anchor
            return name
        return None

    def block_scalar(self, indent):
        ind = self.r.choice(["|", ">"]) + self.r.choice(["", "-", "+"])
        pad = " " * (indent + 2)
        lines = []
        for _ in range(self.r.randint(1, 3)):
            lines.append(pad + " ".join(self.r.choice(MB + WORDS) for _ in range(self.r.randint(1, 3))))
            if self.r.random() < 0.2:
                lines.append("")
        if self.r.random() < 0.3:
            lines.append(pad + "  more indented")
        tail = [""] * self.r.randint(0, 2)
        return ind, lines + tail

    def value(self, depth, indent, flow=False):
        """(inline text, following block lines)"""
        r = self.r.random()
        if self.anchors and r < 0.07:
            name, _ = self.r.choice(self.anchors)
            return "*" + name, []
        if flow or depth >= 4 or r < 0.45:
            if not flow and r < 0.52:
                ind, lines = self.block_scalar(indent)
                return ind, lines
            if depth < 4 and self.r.random() < 0.25:
                return self.flow(depth + 1), []
            return self.plain(flow), []
        anchor = self.anchor(True)
        pre = ("&" + anchor + " ") if anchor else ""
        if self.r.random() < 0.6:
            lines = self.mapping(depth + 1, indent + 2)
            if anchor:
                self.anchors.append((anchor, True))
            return pre.rstrip(), lines
        lines = self.sequence(depth + 1, indent + 2)
        if anchor:
            self.anchors.append((anchor, False))
        return pre.rstrip(), lines

    def flow(self, depth):
        if self.r.random() < 0.5:
            items = [self.flow(depth + 1) if depth < 4 and self.r.random() < 0.2 else self.plain(True)
                     for _ in range(self.r.randint(0, 4))]
            return "[" + ", ".join(items) + "]"
        used = set()
        items = []
        for _ in range(self.r.randint(0, 4)):
            k = self.key(used, flow=True)
            v = self.flow(depth + 1) if depth < 4 and self.r.random() < 0.2 else self.plain(True)
            items.append(k + ": " + v)
        return "{" + ", ".join(items) + "}"

    def entry(self, head, depth, indent):
        text, block = self.value(depth, indent)
        line = head + (" " + text if text else "")
        if self.r.random() < 0.1 and not block:
            line += "  " + self.comment()
        return [line] + block

    def mapping(self, depth, indent, extra_keys=()):
        pad = " " * indent
        used = set()
        out = []
        merges = [m for m in self.anchors if m[1]]
        merge_at = -1
        n = self.r.randint(1, 5)
        if merges and self.r.random() < 0.3:
            merge_at = self.r.randint(0, n)
        for i in range(n + 1):
            if i == merge_at:
                if self.r.random() < 0.6:
                    out.append(pad + "<<: *" + self.r.choice(merges)[0])
                else:
                    names = {self.r.choice(merges)[0] for _ in range(2)}
                    out.append(pad + "<<: [" + ", ".join("*" + x for x in sorted(names)) + "]")
            if i == n:
                break
            if self.r.random() < 0.1:
                out.append(pad + self.comment())
            k = extra_keys[i] if i < len(extra_keys) else self.key(used)
            out += self.entry(pad + k + ":", depth, indent)
        return out

    def sequence(self, depth, indent):
        pad = " " * indent
        out = []
        for _ in range(self.r.randint(1, 4)):
            if self.r.random() < 0.25 and depth < 4:
                sub = self.mapping(depth + 1, indent + 2)
                out.append(pad + "- " + sub[0].lstrip())
                out += sub[1:]
            else:
                out += self.entry(pad + "-", depth, indent)
        return out

    def document(self):
        self.anchors = []
        kind = self.r.choice(["RayJob", "ConfigMap", "Secret", "Service", "list", "scalar", "empty", "flow"])
        if kind == "empty":
            return [self.comment()] if self.r.random() < 0.5 else []
        if kind == "scalar":
            return [self.plain(False)]
        if kind == "flow":
            return [self.flow(1)]
        if kind == "list":
            return self.sequence(1, 0)
        head = [("apiVersion:", "ray.io/v1" if kind == "RayJob" else "v1"), ("kind:", kind)]
        lines = [k + " " + v for k, v in head]
        lines += self.mapping(1, 0)
        return lines


def damage(rng, text):
    c = rng.random()
    if c < 0.3 and len(text) > 2:
        i = rng.randrange(len(text))
        return text[:i] + text[i + 1:]
    if c < 0.5 and len(text) > 2:
        i = rng.randrange(len(text))
        return text[:i] + text[i] + text[i:]
    if c < 0.7:
        lines = text.split("\n")
        i = rng.randrange(len(lines))
        lines[i] = "\t" + lines[i]
        return "\n".join(lines)
    lines = text.split("\n")
    keyed = [l for l in lines if l and not l.startswith((" ", "#", "-")) and ":" in l]
    if keyed:
        lines.append(rng.choice(keyed))  # a repeated top-level key (or a broken line)
    return "\n".join(lines)


def stream(rng):
    g = Gen(rng)
    parts = []
    for d in range(rng.randint(1, 4)):
        lines = g.document()
        if d > 0 or rng.random() < 0.3:
            sep = rng.choice(["---", "---", "--- # " + g.mb(), "---   "])
            if d > 0 and rng.random() < 0.1:
                parts.append("...")
            parts.append(sep)
        if rng.random() < 0.1 and lines:
            lines[0] = "\ufeff" + lines[0] if d > 0 else lines[0]
        if rng.random() < 0.3:
            parts.append(g.comment())
        parts += lines
    if rng.random() < 0.2:
        parts.append(g.comment())
    text = "\n".join(parts) + ("\n" if rng.random() < 0.9 else "")
    if rng.random() < 0.08:
        text = damage(rng, text)
    if rng.random() < 0.15:
        text = text.replace("\n", "\r\n")
    data = text.encode("utf-8")
    if rng.random() < 0.1:
        data = b"\xef\xbb\xbf" + data
    return data


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--count", type=int, required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    rng = random.Random(a.seed)
    for i in range(a.count):
        with open(os.path.join(a.out, "case-%06d.yaml" % i), "wb") as f:
            f.write(stream(rng))


if __name__ == "__main__":
    main()
