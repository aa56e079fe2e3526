#!/usr/bin/env python3
"""Where a frame's latency goes, from an element's trace file.

    tools/trace/trace-latency.py TRACE.json [--skip N]

Reads the Chrome trace that `trace-file=` writes (docs/stats.md) and prints,
for the frames in it (the first N skipped: warm-up), the median and p90 of:

  chain        the element's chain function: entry to the last chunk queued
  pre-submit   chain entry to co_engine_submit (slot, output buffer, maps,
               plan)
  submit       co_engine_submit: queueing every chunk's copies, kernel and
               events
  to-device    chain entry to the first H2D copy starting on the device
  device       first H2D start to last D2H end (the frame's device time;
               on the CPU backend: its kernels' span)
  wake         last D2H end to the push thread seeing the frame done
  to-push      push thread seeing it done to the push starting
  push         the push downstream (appsink's callback included)
  element      chain entry to the push's end

Host spans carry no frame number: the k-th chain, wait and push spans are
the k-th frame's (frames are handed on in order).  Device spans name their
frame.  Pure standard library.
"""
import json
import sys


def pct(xs, p):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    i = min(len(xs) - 1, max(0, int(round(p / 100.0 * (len(xs) - 1)))))
    return xs[i]


def main(argv):
    if len(argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    skip = int(argv[argv.index("--skip") + 1]) if "--skip" in argv else 1
    with open(argv[1]) as f:
        events = json.load(f)["traceEvents"]
    host = {"chain": [], "submit": [], "wait": [], "push": []}
    dev = {}
    for ev in events:
        if ev.get("ph") != "X":
            continue
        if ev.get("cat") == "host" and ev["name"] in host:
            host[ev["name"]].append((ev["ts"], ev["ts"] + ev["dur"]))
        elif ev.get("cat") == "device":
            fr = ev["args"]["frame"]
            lo, hi = dev.get(fr, (float("inf"), 0.0))
            dev[fr] = (min(lo, ev["ts"]), max(hi, ev["ts"] + ev["dur"]))
    frames = sorted(dev)
    n = min(len(frames), len(host["chain"]), len(host["wait"]),
            len(host["push"]))
    rows = {k: [] for k in ("chain", "pre-submit", "submit", "to-device", "device", "wake",
                            "to-push", "push", "element")}
    for k in range(skip, n):
        c0, c1 = host["chain"][k]
        d0, d1 = dev[frames[k]]
        w1 = host["wait"][k][1]
        p0, p1 = host["push"][k]
        rows["chain"].append(c1 - c0)
        if k < len(host["submit"]):
            s0, s1 = host["submit"][k]
            rows["pre-submit"].append(s0 - c0)
            rows["submit"].append(s1 - s0)
        rows["to-device"].append(d0 - c0)
        rows["device"].append(d1 - d0)
        rows["wake"].append(w1 - d1)
        rows["to-push"].append(p0 - w1)
        rows["push"].append(p1 - p0)
        rows["element"].append(p1 - c0)
    print("%s: %d frames (first %d skipped), microseconds" %
          (argv[1], max(0, n - skip), skip))
    print("| step | p50 | p90 |")
    print("|---|--:|--:|")
    for name, xs in rows.items():
        print("| %s | %.1f | %.1f |" % (name, pct(xs, 50), pct(xs, 90)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
