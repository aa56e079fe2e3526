#!/usr/bin/env python3
"""Compare bench runs with the committed CSV of the bench gate (docs/bench.md).

Usage: bench-compare.py COMMITTED.csv RUN.csv [RUN2.csv] [--threshold 0.05]
       bench-compare.py --median OUT.csv REPEAT.csv...

A row is gated when the committed CSV gives it a ratio to its ceiling
(x_raw: frames/s over the raw-best of the same run) and its check passed; on
the CPU backend, which has no raw loop, the ratio to the harness control
(x_control) stands in, and the output says so.  The raw and memcpy rows are
the ceilings themselves and are not gated; the control rows (identity in
the element's place) are the harness control, reported for context and
never flagged.  A run flags a gated row whose
ratio is more than THRESHOLD (5 %) below the committed one, or that is
missing or failed its check; with two runs a row is flagged only when both
flag it (two consecutive runs).
With --median, the REPEAT CSVs (the repeats of one bench run) are merged
into OUT.csv: per row (matched as the compare matches them) every numeric
column is the median of the repeats, the check is ok only if every repeat's
was, and the repeats column says in how many repeats the row was.
Exit status: 0 nothing flagged, 1 rows flagged, 2 the CSVs cannot be
compared (unreadable, or of different backends: a GPU's committed rows
against a run without a GPU).
"""
import argparse
import csv
import statistics
import sys


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def key(r):
    """What identifies a row across runs: the settings the element chose
    (defaults rows) and the best raw or memcpy setting (its mode names the
    threads of memcpy-best) may differ between runs."""
    if r["name"].endswith("-best"):
        return (r.get("label", ""), r["name"], r["input"])
    k = (r.get("label", ""), r["name"], r["mode"], r["input"])
    if "auto" in r["mode"]:
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


def decimals(v):
    return len(v) - v.index(".") - 1 if "." in v else 0


def median_cell(values):
    """The median of the numeric cells (integers stay integers: the lower
    median), or the first repeat's text when the column is not numeric."""
    nums = [v for v in values if num(v) is not None]
    if not nums:
        return values[0]
    if len(nums) < len(values) and any(v.strip() for v in values
                                       if num(v) is None):
        return values[0]
    if all(decimals(v) == 0 and "e" not in v.lower() for v in nums):
        return str(statistics.median_low(int(float(v)) for v in nums))
    m = statistics.median(float(v) for v in nums)
    return "%.*f" % (max(decimals(v) for v in nums), m)


def merge(repeats):
    """One row per key, in the order the repeats give them."""
    order, by_key = [], {}
    for rows in repeats:
        for r in rows:
            k = key(r)
            if k not in by_key:
                order.append(k)
                by_key[k] = []
            by_key[k].append(r)
    fields = list(repeats[0][0])
    out = []
    for k in order:
        rs = by_key[k]
        m = {}
        for c in fields:
            m[c] = median_cell([r.get(c) or "" for r in rs])
        bad = [r["check"] for r in rs if not r["check"].startswith("ok")]
        if bad:
            m["check"] = bad[0]
        elif len(rs) < len(repeats):
            m["check"] = "missing in %d of %d repeats" % (len(repeats) - len(rs),
                                                          len(repeats))
        else:
            m["check"] = rs[0]["check"]
        m["repeats"] = str(len(rs))
        out.append(m)
    return fields + (["repeats"] if "repeats" not in fields else []), out


def write_median(path, paths):
    repeats = [read(p) for p in paths]
    if any(r is None for r in repeats):
        return 2
    fields, rows = merge(repeats)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    print("bench-compare: %s: %d rows, each the median of %d repeat(s)"
          % (path, len(rows), len(repeats)))
    return 0


def ratio(r, column):
    return num(r.get(column)) if r and r["check"].startswith("ok") else None


def gated(committed):
    """(key, row, column, gate) of the committed rows that carry a ratio;
    gate is False for the control rows (reported, never flagged)."""
    for r in committed:
        if r["name"].startswith(("raw", "memcpy")) or not r["check"].startswith("ok"):
            continue
        for column in ("x_raw", "x_control"):
            if num(r.get(column)) is not None:
                yield key(r), r, column, r["name"] != "control"
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
    ap.add_argument("--median", action="store_true",
                    help="merge the repeats given after the output CSV")
    args = ap.parse_args()
    if args.median:
        return write_median(args.committed, args.runs)
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
    for k, r, column, gate in gated(committed):
        stand_in |= column == "x_control"
        base = num(r[column])
        cells, flags = [], []
        for rows in by_key:
            new = ratio(rows.get(k), column)
            text, flag = verdict(base, new, args.threshold)
            cells.append("%s (%s)" % ("%.3f" % new if new is not None else "-", text))
            flags.append(flag)
        is_flagged = gate and all(flags)
        flagged += is_flagged
        what = "ratio to raw-best" if column == "x_raw" else "ratio to control"
        print("| %s | %s %s | %s | %s | %s | %.3f | %s | %s |"
              % (r.get("label", ""), r["name"], r["mode"], r["input"],
                 "%sx%s" % (r["streams"], r["chunks"]) if r["streams"] else "-",
                 what if gate else "harness control: %s" % what.replace("ratio", "x"),
                 base, " | ".join(cells),
                 "FLAGGED" if is_flagged else "" if gate else "not gated"))
    if stand_in:
        print("note: rows without a raw ceiling (the CPU backend) are compared "
              "by their ratio to the harness control")
    print("compare: %d row(s) flagged (more than %.0f %% below %s%s)"
          % (flagged, 100 * args.threshold, args.committed,
             " in both runs" if len(runs) == 2 else ""))
    return 1 if flagged else 0


if __name__ == "__main__":
    sys.exit(main())
