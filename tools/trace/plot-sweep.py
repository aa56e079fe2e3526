#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Draw the --sweep CSV of cudaoverlap-bench: frames/s against chunks, one
line per streams value, one panel per input (pinned, registered), with the
raw CUDA ceiling (row raw-best) and the element's serial rows as horizontal
lines.

  tools/trace/plot-sweep.py sweep.csv [-o sweep.svg]   (.svg or .png by suffix)

Needs python3 and matplotlib (Debian: python3-matplotlib).
"""
import argparse
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def num(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return None


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", help="CSV written by cudaoverlap-bench --sweep --csv")
    ap.add_argument("-o", "--output", default="sweep.svg",
                    help="output file, .svg or .png (default sweep.svg)")
    ap.add_argument("--title", default=None)
    args = ap.parse_args()

    with open(args.csv, newline="") as f:
        rows = list(csv.DictReader(f))
    sweep = [r for r in rows if r["name"] == "sweep" and num(r["fps"])]
    if not sweep:
        sys.exit("%s: no sweep rows (run cudaoverlap-bench with --sweep)" % args.csv)
    raw = [num(r["fps"]) for r in rows if r["name"] == "raw-best" and num(r["fps"])]
    inputs = [i for i in ("pinned", "registered") if any(r["input"] == i for r in sweep)]

    fig, axes = plt.subplots(1, len(inputs), figsize=(6.5 * len(inputs), 4.8),
                             sharey=True, squeeze=False)
    for ax, inp in zip(axes[0], inputs):
        rs = [r for r in sweep if r["input"] == inp]
        for s in sorted({int(r["streams"]) for r in rs}):
            pts = sorted((int(r["chunks"]), num(r["fps"]), r["check"])
                         for r in rs if int(r["streams"]) == s)
            x = [p[0] for p in pts]
            line, = ax.plot(x, [p[1] for p in pts], marker="o", label="%d streams" % s)
            bad = [p for p in pts if not p[2].startswith("ok")]
            if bad:
                ax.plot([p[0] for p in bad], [p[1] for p in bad], "x", color="red",
                        markersize=10, label="_nolegend_")
        if raw:
            ax.axhline(raw[0], color="black", linestyle="--",
                       label="raw CUDA ceiling %.0f fps" % raw[0])
        serial = [num(r["fps"]) for r in rows if r["name"] == "element"
                  and r["mode"] == "serial" and r["input"] == inp and num(r["fps"])]
        if serial:
            ax.axhline(serial[0], color="gray", linestyle=":",
                       label="element serial %.0f fps" % serial[0])
        ax.set_xscale("log", base=2)
        ax.set_xticks([1, 2, 4, 8])
        ax.get_xaxis().set_major_formatter(matplotlib.ticker.ScalarFormatter())
        ax.set_xlabel("chunks per frame")
        ax.set_title("cudavideofilter mode=overlap, %s input" % inp)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="small")
    axes[0][0].set_ylabel("frames/s")
    r0 = sweep[0]
    any_bad = any(not r["check"].startswith("ok") for r in sweep)
    fig.suptitle(args.title or "%sx%s %s, %s frames per point%s"
                 % (r0["width"], r0["height"], r0["format"], r0["frames"],
                    " (red x: check failed, INVALID)" if any_bad else ""))
    fig.tight_layout()
    fig.savefig(args.output)
    print("wrote %s" % args.output)


if __name__ == "__main__":
    main()
