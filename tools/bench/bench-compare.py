#!/usr/bin/env python3
"""Compare bench runs with the committed CSV of the bench gate (docs/bench.md).

Usage: bench-compare.py COMMITTED.csv RUN.csv [RUN2.csv] [--threshold 0.05]

A row is gated when the committed CSV gives it a ratio to its ceiling
(x_raw: frames/s over the raw-best of the same run) and its check passed; on
the CPU backend, which has no raw loop, the ratio to the harness control
(x_control) stands in, and the output says so.  The raw and memcpy rows are
the ceilings themselves and are not gated.  A run flags a gated row whose
ratio is more than THRESHOLD (5 %) below the committed one, or that is
missing or failed its check; with two runs a row is flagged only when both
flag it (two consecutive runs).
Exit status: 0 nothing flagged, 1 rows flagged, 2 the CSVs cannot be
compared (unreadable, or of different backends: a GPU's committed rows
against a run without a GPU).
"""
import argparse
import csv
import sys


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def key(r):
    """What identifies a row across runs: the settings the element chose
    (defaults rows) and the best raw setting may differ between runs."""
    k = (r.get("label", ""), r["name"], r["mode"], r["input"])
    if "auto" in r["mode"] or r["name"].endswith("-best"):
        return k
    return k + (r["streams"], r["chunks"])


def read(path):
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        print("bench-compare: %s" % e)
        return None
    need = {"name", "mode", "input", "streams", "chunks", "x_raw", "x_control",
            "check", "backend"}
    if not rows or not need <= set(rows[0]):
        print("bench-compare: %s: not a bench CSV (columns %s)"
              % (path, ", ".join(sorted(need))))
        return None
    return rows


def ratio(r, column):
    return num(r.get(column)) if r and r["check"].startswith("ok") else None


def gated(committed):
    """(key, row, column) of the committed rows that carry a ratio."""
    for r in committed:
        if r["name"].startswith(("raw", "memcpy")) or not r["check"].startswith("ok"):
            continue
        for column in ("x_raw", "x_control"):
            if num(r.get(column)) is not None:
                yield key(r), r, column
                break


def verdict(base, new, threshold):
    if new is None:
        return "missing or failed", True
    if new < base * (1 - threshold):
        return "%+.1f %%" % (100 * (new / base - 1)), True
    return "%+.1f %%" % (100 * (new / base - 1)), False


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("committed")
    ap.add_argument("runs", nargs="+", metavar="run")
    ap.add_argument("--threshold", type=float, default=0.05)
    args = ap.parse_args()
    if len(args.runs) > 2:
        ap.error("one or two runs")
    committed = read(args.committed)
    runs = [read(p) for p in args.runs]
    if committed is None or any(r is None for r in runs):
        return 2
    backends = {r["backend"] for r in committed}
    for path, rows in zip(args.runs, runs):
        if {r["backend"] for r in rows} != backends:
            print("NOT COMPARED: %s holds rows of backend %s, %s of backend %s "
                  "(a GPU's rows are compared only with a GPU's)"
                  % (args.committed, "/".join(sorted(backends)), path,
                     "/".join(sorted({r["backend"] for r in rows}))))
            return 2
    by_key = [{key(r): r for r in rows} for rows in runs]
    flagged = 0
    stand_in = False
    print("| label | row | input | streams x chunks | ratio | committed | %s | flagged |"
          % " | ".join("run %d" % (i + 1) for i in range(len(runs))))
    print("|---|---|---|---|---|--:|%s---|" % ("--:|" * len(runs)))
    for k, r, column in gated(committed):
        stand_in |= column == "x_control"
        base = num(r[column])
        cells, flags = [], []
        for rows in by_key:
            new = ratio(rows.get(k), column)
            text, flag = verdict(base, new, args.threshold)
            cells.append("%s (%s)" % ("%.3f" % new if new is not None else "-", text))
            flags.append(flag)
        is_flagged = all(flags)
        flagged += is_flagged
        print("| %s | %s %s | %s | %s | %s | %.3f | %s | %s |"
              % (r.get("label", ""), r["name"], r["mode"], r["input"],
                 "%sx%s" % (r["streams"], r["chunks"]) if r["streams"] else "-",
                 "ratio to raw-best" if column == "x_raw" else "ratio to control",
                 base, " | ".join(cells), "FLAGGED" if is_flagged else ""))
    if stand_in:
        print("note: rows without a raw ceiling (the CPU backend) are compared "
              "by their ratio to the harness control")
    print("compare: %d row(s) flagged (more than %.0f %% below %s%s)"
          % (flagged, 100 * args.threshold, args.committed,
             " in both runs" if len(runs) == 2 else ""))
    return 1 if flagged else 0


if __name__ == "__main__":
    sys.exit(main())
