#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""cudaoverlap example: animate cudavideofilter's gamma from a program.

gamma (like cudaaudiofilter's gain-db) is a controllable property: a
GstController control source sets it for every buffer at the buffer's
stream time, with no pause and no rebuild of the element's engine.  This
script ramps gamma linearly from --from to --to over the run:

    videotestsrc pattern=gradient ! video/x-raw,format=GRAY8,... \\
        ! cudavideofilter operation=gamma ! appsink

and checks every output frame against a gamma table computed here, in
Python, for the value the control source gives at the frame's time.  It
prints one line per --print-every frames and a summary.

Needs PyGObject and GStreamer's introspection data (Debian: python3-gst-1.0)
and the plugin on GStreamer's path (installed, or GST_PLUGIN_PATH):

    python3 gamma-ramp.py --frames 90 --from 0.5 --to 2.5

Exit status: 0; 1 when a frame differs or a message is an error; 2 on bad
arguments; 77 (a skipped test) without PyGObject or GStreamer's
introspection data.
"""
import argparse
import math
import sys

try:
    import gi

    gi.require_version("Gst", "1.0")
    gi.require_version("GstController", "1.0")
    from gi.repository import Gst, GstController
except (ImportError, ValueError) as e:
    print(f"SKIP: {sys.executable} has no PyGObject with GStreamer 1.0 and "
          f"its controller library ({e}): install python3-gst-1.0 (Debian)",
          file=sys.stderr)
    sys.exit(77)


def gamma_table(gamma):
    """The element's arithmetic, written independently: 8-bit."""
    return bytes(min(255, max(0, math.floor(255.0 * (i / 255.0) **
                                            (1.0 / gamma) + 0.5)))
                 for i in range(256))


def ramp_value(t, t0, v0, t1, v1):
    """The control source's linear interpolation, in its own order of
    operations (PyGObject cannot call GstControlSource.get_value)."""
    if t >= t1:
        return v1
    return v0 + float(t - t0) * ((v1 - v0) / float(t1 - t0))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--frames", type=int, default=90)
    ap.add_argument("--width", type=int, default=320)
    ap.add_argument("--height", type=int, default=240)
    ap.add_argument("--from", dest="g0", type=float, default=0.5)
    ap.add_argument("--to", dest="g1", type=float, default=2.5)
    ap.add_argument("--backend", default="auto", choices=["auto", "cuda", "cpu"])
    ap.add_argument("--print-every", type=int, default=15)
    args = ap.parse_args()
    if args.frames < 2 or not (0.01 <= args.g0 <= 10 and 0.01 <= args.g1 <= 10):
        ap.error("--frames >= 2, gamma values in [0.01, 10]")

    Gst.init(None)
    fps = 30
    pipe = Gst.parse_launch(
        f"videotestsrc pattern=gradient num-buffers={args.frames} "
        f"! video/x-raw,format=GRAY8,width={args.width},height={args.height},"
        f"framerate={fps}/1 ! tee name=t "
        f"t. ! queue ! appsink name=in sync=false "
        f"t. ! queue ! cudavideofilter name=f operation=gamma "
        f"backend={args.backend} ! appsink name=out sync=false")
    f = pipe.get_by_name("f")
    if f is None:
        print("no cudavideofilter: is the plugin on GST_PLUGIN_PATH?",
              file=sys.stderr)
        return 1

    # the ramp: a linear interpolation between two points in stream time
    cs = GstController.InterpolationControlSource()
    cs.set_property("mode", GstController.InterpolationMode.LINEAR)
    last = (args.frames - 1) * Gst.SECOND // fps
    cs.set(0, args.g0)
    cs.set(last, args.g1)
    f.add_control_binding(
        GstController.DirectControlBinding.new_absolute(f, "gamma", cs))

    inputs, bad, seen = {}, 0, 0
    pipe.set_state(Gst.State.PLAYING)
    insink, outsink = pipe.get_by_name("in"), pipe.get_by_name("out")
    while True:
        s = insink.emit("try-pull-sample", 5 * Gst.SECOND)
        if s is not None:
            b = s.get_buffer()
            inputs[b.pts] = b.extract_dup(0, b.get_size())
        o = outsink.emit("try-pull-sample", 5 * Gst.SECOND)
        if o is None:
            break
        b = o.get_buffer()
        while b.pts not in inputs:
            s = insink.emit("try-pull-sample", 5 * Gst.SECOND)
            if s is None:
                break
            ib = s.get_buffer()
            inputs[ib.pts] = ib.extract_dup(0, ib.get_size())
        gamma = ramp_value(b.pts, 0, args.g0, last, args.g1)
        want = inputs.pop(b.pts, b"").translate(gamma_table(gamma))
        got = b.extract_dup(0, b.get_size())
        ok = got == want
        bad += not ok
        if not ok or seen % args.print_every == 0:
            print(f"frame {seen:4d}  t={b.pts / Gst.SECOND:6.3f} s  "
                  f"gamma={gamma:.4f}  {'ok' if ok else 'DIFFERS'}")
        seen += 1

    msg = pipe.get_bus().pop_filtered(Gst.MessageType.ERROR)
    pipe.set_state(Gst.State.NULL)
    if msg is not None:
        err, dbg = msg.parse_error()
        print(f"error: {err.message} ({dbg})", file=sys.stderr)
        return 1
    print(f"{seen} frames, gamma {args.g0} -> {args.g1}: "
          f"{seen - bad} equal to the reference, {bad} differ")
    return 0 if bad == 0 and seen == args.frames else 1


if __name__ == "__main__":
    sys.exit(main())
