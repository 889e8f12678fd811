#!/usr/bin/env python3
"""Measures pipesplit's TVMScript fidelity on the modules of TVM's own test suite.

Extracts every `@I.ir_module` / `@tvm.script.ir_module` class from the Python test files of a TVM
checkout at a given revision (read with `git show`, so no work tree is needed), then for each
module checks, with the `pipesplit` binary:
  1. it parses (`fmt`),
  2. the printed module parses again and prints the same bytes (`fmt` is idempotent),
  3. the printed module is structurally equal to the input (`diff`).
A module that refers to a Python name bound outside it, or computes its text with Python
(`T.grid(*x.shape)`, f-strings, loops over the class body), is a "Python-level escape": TVM's
parser evaluates it in the test's Python scope, which a standalone TVMScript reader cannot. Those
are counted apart, by the error the parser gives for them.

Usage: tvm_suite.py --git-dir DIR --rev REV --pipesplit BIN [--subdir tests/python/relax]
                    [--out DIR] [--show CLASS]
Prints a summary (counts per outcome and per failure class) on standard output.
"""
import argparse
import ast
import collections
import os
import re
import subprocess
import sys
import tempfile
import textwrap

MODULE_DECORATORS = {"I.ir_module", "tvm.script.ir_module", "ir_module", "ir.ir_module",
                     "tvm.script.ir.ir_module"}

# Parser messages that mean the module leans on the Python scope of the test.
ESCAPE_PATTERNS = [
    r"undefined variable", r"undefined name", r"T\.meta_var", r"starred", r"f-string",
]


def dotted(node):
    if isinstance(node, ast.Call):
        node = node.func
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


def git_files(git_dir, rev, subdir):
    out = subprocess.run(["git", "--git-dir", git_dir, "ls-tree", "-r", "--name-only", rev,
                          subdir], check=True, capture_output=True, text=True).stdout
    return [p for p in out.splitlines() if p.endswith(".py")]


def git_show(git_dir, rev, path):
    return subprocess.run(["git", "--git-dir", git_dir, "show", f"{rev}:{path}"], check=True,
                          capture_output=True, text=True).stdout


def extract_modules(source):
    """Yields (class name, text) for each TVMScript module class in a Python file."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return
    lines = source.splitlines(keepends=True)
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        if not any(dotted(d) in MODULE_DECORATORS for d in node.decorator_list):
            continue
        start = min(d.lineno for d in node.decorator_list) - 1
        text = textwrap.dedent("".join(lines[start:node.end_lineno]))
        yield node.name, text


def run(cmd, stdin=None):
    p = subprocess.run(cmd, capture_output=True, text=True, input=stdin)
    return p.returncode, p.stdout, p.stderr


def first_error(stderr):
    for line in stderr.splitlines():
        m = re.search(r"error: (.*)", line)
        if m:
            return m.group(1)
    return stderr.strip().splitlines()[0] if stderr.strip() else "(no message)"


def classify_message(msg):
    """A failure class: the message with names, numbers and quoted text blanked."""
    msg = re.sub(r"'[^']*'", "'_'", msg)
    msg = re.sub(r"\"[^\"]*\"", "\"_\"", msg)
    msg = re.sub(r"`[^`]*`", "`_`", msg)
    msg = re.sub(r"\b\d+\b", "N", msg)
    return msg[:110]


def check_module(binary, text, workdir, name):
    src = os.path.join(workdir, name + ".in.py")
    p1 = os.path.join(workdir, name + ".p1.py")
    with open(src, "w") as f:
        f.write(text)
    rc, out, err = run([binary, "fmt", src, "-o", p1])
    if rc != 0:
        msg = first_error(err)
        kind = "escape" if any(re.search(p, msg) for p in ESCAPE_PATTERNS) else "parse"
        return kind, msg
    rc, out2, err = run([binary, "fmt", p1])
    if rc != 0:
        return "reparse", first_error(err)
    with open(p1) as f:
        printed = f.read()
    if out2 != printed:
        return "idempotence", "the second print differs"
    rc, out, err = run([binary, "diff", src, p1])
    if rc != 0:
        return "unequal", (out + err).strip().splitlines()[0] if (out + err).strip() else "differ"
    return "ok", ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--git-dir", required=True)
    ap.add_argument("--rev", default="HEAD")
    ap.add_argument("--subdir", default="tests/python/relax")
    ap.add_argument("--pipesplit", required=True)
    ap.add_argument("--out", help="keep the extracted modules and prints here")
    ap.add_argument("--show", help="list the modules of the failure classes matching this regex")
    args = ap.parse_args()
    workdir = args.out or tempfile.mkdtemp(prefix="tvm_suite_")
    os.makedirs(workdir, exist_ok=True)
    outcomes = collections.Counter()
    classes = collections.defaultdict(list)
    for path in git_files(args.git_dir, args.rev, args.subdir):
        base = os.path.basename(path)[:-3]
        seen = collections.Counter()
        for cls, text in extract_modules(git_show(args.git_dir, args.rev, path)):
            seen[cls] += 1
            name = f"{base}__{cls}" + (f"__{seen[cls]}" if seen[cls] > 1 else "")
            kind, msg = check_module(args.pipesplit, text, workdir, name)
            outcomes[kind] += 1
            if kind != "ok":
                classes[(kind, classify_message(msg))].append(name)
    total = sum(outcomes.values())
    counted = total - outcomes["escape"]
    print(f"revision {args.rev}: {total} modules, {outcomes['escape']} with a Python-level "
          f"escape, {counted} counted")
    print(f"round-trip (parse, print, parse equal, fmt idempotent): {outcomes['ok']}/{counted} "
          f"= {100.0 * outcomes['ok'] / max(counted, 1):.1f}%")
    for kind, n in outcomes.most_common():
        print(f"  {kind}: {n}")
    print("failure classes:")
    for (kind, msg), names in sorted(classes.items(), key=lambda kv: -len(kv[1])):
        print(f"  {len(names):4d} {kind}: {msg}")
        if args.show and re.search(args.show, kind + ": " + msg):
            for n in names:
                print(f"         {os.path.join(workdir, n)}.in.py")
    return 0


if __name__ == "__main__":
    sys.exit(main())
