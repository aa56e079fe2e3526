#!/usr/bin/python3
"""Draw a cudaoverlap trace-file (Chrome trace-event JSON) as a timeline PNG/SVG:
one row per track (stream × operation kind, host threads), one bar per event.

    tools/trace/plot-trace.py TRACE.json OUT.png [--from-frame N] [--frames K]
"""
import argparse
import json

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

COLOURS = {"H2D": "#1f77b4", "kernel": "#2ca02c", "D2H": "#d62728",
           "chain": "#7f7f7f", "wait": "#bcbd22", "push": "#9467bd"}

ap = argparse.ArgumentParser()
ap.add_argument("trace")
ap.add_argument("out")
ap.add_argument("--from-frame", type=int, default=None)
ap.add_argument("--frames", type=int, default=6)
a = ap.parse_args()

ev = json.load(open(a.trace))["traceEvents"]
names = {e["tid"]: e["args"]["name"] for e in ev
         if e.get("ph") == "M" and e.get("name") == "thread_name"}
xs = [e for e in ev if e.get("ph") == "X"]
dev = [e for e in xs if e.get("cat") == "device"]
frames = sorted({e["args"]["frame"] for e in dev})
if not frames:
    raise SystemExit("no device events in the trace")
f0 = a.from_frame if a.from_frame is not None else frames[len(frames) // 2]
sel = [e for e in dev if f0 <= e["args"]["frame"] < f0 + a.frames]
t0 = min(e["ts"] for e in sel)
t1 = max(e["ts"] + e["dur"] for e in sel)
sel += [e for e in xs if e.get("cat") == "host" and e["ts"] < t1 and e["ts"] + e["dur"] > t0]
tids = sorted({e["tid"] for e in sel})
row = {t: i for i, t in enumerate(tids)}

fig, ax = plt.subplots(figsize=(12, 0.35 * len(tids) + 1.5))
for e in sel:
    kind = e["name"]
    ax.broken_barh([(e["ts"] - t0, e["dur"])], (row[e["tid"]] - 0.4, 0.8),
                   facecolors=COLOURS.get(kind, "#17becf"))
    if e.get("cat") == "device" and e["dur"] > (t1 - t0) / 60:
        ax.text(e["ts"] - t0 + e["dur"] / 2, row[e["tid"]], f'{e["args"]["frame"]}.{e["args"]["chunk"]}',
                ha="center", va="center", fontsize=6, color="white")
ax.set_yticks(range(len(tids)))
ax.set_yticklabels([names.get(t, str(t)) for t in tids], fontsize=8)
ax.invert_yaxis()
ax.set_xlim(0, t1 - t0)
ax.set_xlabel("µs (labels: frame.chunk)")
ax.set_title(f"cudaoverlap timeline, frames {f0}–{f0 + a.frames - 1}")
fig.tight_layout()
fig.savefig(a.out, dpi=110)
print(f"{a.out}: {len(sel)} events, {len(tids)} tracks, {(t1 - t0) / 1000:.3f} ms")
