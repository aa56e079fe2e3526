#!/usr/bin/env python3
"""Check that every docs/perf path and every relative link named in a tracked *.md exists.

Looks at `docs/perf/...` and `perf/...` mentions (expanding `{a,b}` and `*`) and at
relative Markdown link / image targets. Paths with `<...>` placeholders are skipped.
Exit status 1 if anything is missing. Run from anywhere inside the repository.
"""
import glob
import os
import re
import subprocess
import sys

try:
    root = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True,
                          text=True, check=True,
                          cwd=sys.argv[1] if len(sys.argv) > 1 else None).stdout.strip()
except (OSError, subprocess.CalledProcessError):
    print("SKIP: not a git checkout (the tracked *.md files are listed by git)")
    sys.exit(77)
os.chdir(root)
files = subprocess.run(["git", "ls-files", "*.md"], capture_output=True, text=True,
                       check=True).stdout.split()

RUNS = re.compile(r"(?<![\w/.-])((?:docs/)?perf/[\w.{},*/+-]*)")
LINK = re.compile(r"\]\(([^)\s]+)\)")


def expand(p):
    m = re.search(r"\{([^{}]*)\}", p)
    if not m:
        return [p]
    out = []
    for alt in m.group(1).split(","):
        out += expand(p[:m.start()] + alt + p[m.end():])
    return out


def exists(p):
    return bool(glob.glob(p)) if "*" in p else os.path.exists(p)


bad = []
for md in files:
    base = os.path.dirname(md)
    with open(md, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            cands = []
            for m in RUNS.finditer(line):
                p = m.group(1).rstrip(".,;:")
                if "<" in line[m.end():m.end() + 1]:
                    continue  # placeholder such as docs/perf/<path>
                cands.append(p if p.startswith("docs/") else os.path.join(base, p))
            for m in LINK.finditer(line):
                t = m.group(1).split("#")[0]
                if not t or re.match(r"^[a-z]+:", t) or t.startswith("/"):
                    continue
                cands.append(os.path.join(base, t))
            for c in dict.fromkeys(os.path.normpath(c) for c in cands):
                for p in expand(c):
                    if not exists(p):
                        bad.append(f"{md}:{n}: {p}")

for b in bad:
    print("missing:", b)
print(f"{len(files)} markdown files checked, {len(bad)} missing path(s)")
sys.exit(1 if bad else 0)
