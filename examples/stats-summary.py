#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""cudaoverlap example: a PyGObject application that runs cudavideofilter
and reads the cudaoverlap-passport and cudaoverlap-stats messages from the
bus; the same as stats-summary.c.

Needs PyGObject and GStreamer's introspection data (Debian: python3-gst-1.0)
and the plugin on GStreamer's path (installed, or GST_PLUGIN_PATH):

    python3 stats-summary.py --frames 120 --width 1920 --height 1080 \\
        --operation box-blur --stats-interval 100000000

Runs videotestsrc ! video/x-raw,... ! cudavideofilter ! fakesink to EOS and
prints the device and settings (passport), each statistics window's place
in the stream (timestamp, duration, running-time, stream-time) and rate,
and the whole run's place, rate, latencies, overlap and memory paths.
docs/stats.md defines every field and its unit.  Exit status: 0; 1 on an
error message, when a message or field is missing, when the whole run does
not count every frame or has no timestamp; 2 on bad arguments; 77 (a
skipped test) without PyGObject or GStreamer's introspection data.
"""
import argparse
import sys

try:
    import gi

    gi.require_version("Gst", "1.0")
    from gi.repository import GLib, GObject, Gst
except (ImportError, ValueError) as e:
    print(f"SKIP: {sys.executable} has no PyGObject with GStreamer 1.0 ({e}): "
          "install python3-gst-1.0 (Debian), which brings python3-gi and "
          "gir1.2-gstreamer-1.0", file=sys.stderr)
    sys.exit(77)

# The message names; the fields are named where they are read (the C
# header gst/cudaoverlap/cudaoverlap.h names them all).
PASSPORT = "cudaoverlap-passport"
STATS = "cudaoverlap-stats"


class Summary:
    def __init__(self):
        self.passport = None
        self.whole_run = None
        self.windows = []
        self.missing = False

    def take(self, s):
        """Keeps the passport, the windows' statistics and the whole
        run's (whole-run is present, and TRUE, only at EOS)."""
        if s.has_name(PASSPORT):
            self.passport = s.copy()
        elif s.has_name(STATS):
            if s.has_field("whole-run") and s.get_value("whole-run"):
                self.whole_run = s.copy()
            else:
                self.windows.append(s.copy())

    def get(self, s, field, gtype):
        """The value of @field, which must be of @gtype; marks the summary
        when it is not there."""
        if s.has_field_typed(field, gtype):
            return s.get_value(field)
        print(f"{s.get_name()}: no {gtype.name} field {field}", file=sys.stderr)
        self.missing = True
        return 0 if gtype != GObject.TYPE_STRING else "?"

    def ms(self, s, field):
        return self.get(s, field, GObject.TYPE_UINT64) / 1e6

    def time(self, s, field):
        """A GstClockTime field (a guint64 in the structure) as
        H:MM:SS.NNNNNNNNN, "none" for GST_CLOCK_TIME_NONE."""
        t = self.get(s, field, GObject.TYPE_UINT64)
        if t == Gst.CLOCK_TIME_NONE:
            return "none"
        sec, ns = divmod(t, Gst.SECOND)
        return f"{sec // 3600}:{sec // 60 % 60:02}:{sec % 60:02}.{ns:09}"

    def place(self, s):
        """Where the message's frames are in the stream: the four time
        fields of docs/stats.md."""
        return (f"timestamp {self.time(s, 'timestamp')} + duration "
                f"{self.time(s, 'duration')}, running-time "
                f"{self.time(s, 'running-time')}, stream-time "
                f"{self.time(s, 'stream-time')}")


def parse_args():
    p = argparse.ArgumentParser(
        description="run cudavideofilter and print its passport and statistics")
    p.add_argument("-n", "--frames", type=int, default=60, help="frames to run")
    p.add_argument("-W", "--width", type=int, default=640)
    p.add_argument("-H", "--height", type=int, default=480)
    p.add_argument("-f", "--format", default="RGBA", help="video format")
    p.add_argument("-o", "--operation", default="invert",
                   help="invert, gamma or box-blur")
    p.add_argument("-b", "--backend", default="auto", help="auto, cuda or cpu")
    p.add_argument("-s", "--streams", type=int, default=4)
    p.add_argument("-c", "--chunks", type=int, default=4)
    p.add_argument("-i", "--stats-interval", type=int, default=100_000_000,
                   help="ns between statistics windows; 0: only the whole run")
    a = p.parse_args()
    if min(a.frames, a.width, a.height) < 1 or a.stats_interval < 0:
        p.error("--frames, --width and --height must be at least 1, "
                "--stats-interval at least 0")
    return a


def run(pipeline, summary):
    """Runs @pipeline to EOS or an error; False on an error."""
    bus = pipeline.get_bus()
    ok = True
    if pipeline.set_state(Gst.State.PLAYING) == Gst.StateChangeReturn.FAILURE:
        print("the pipeline did not start (the error follows)", file=sys.stderr)
    while True:
        msg = bus.timed_pop_filtered(
            Gst.CLOCK_TIME_NONE,
            Gst.MessageType.ELEMENT | Gst.MessageType.ERROR | Gst.MessageType.EOS)
        if msg.type == Gst.MessageType.ELEMENT:
            summary.take(msg.get_structure())
            continue
        if msg.type == Gst.MessageType.ERROR:
            err, debug = msg.parse_error()
            print(f"error from {msg.src.get_name()}: {err.message}\n{debug or ''}",
                  file=sys.stderr)
            ok = False
        break
    pipeline.set_state(Gst.State.NULL)
    return ok


def print_summary(summary, frames):
    """Prints the summary; False when something the run must post is
    missing."""
    p, w, get, ms = summary.passport, summary.whole_run, summary.get, summary.ms
    u64, uint, dbl, string = (GObject.TYPE_UINT64, GObject.TYPE_UINT, GObject.TYPE_DOUBLE,
                              GObject.TYPE_STRING)
    if p is None or w is None:
        print(f"no {PASSPORT if p is None else STATS} message arrived",
              file=sys.stderr)
        return False
    print(f"device:    {get(p, 'device-name', string)} (compute capability "
          f"{get(p, 'compute-capability', string)}), backend "
          f"{get(p, 'backend', string)}")
    print(f"settings:  {get(p, 'operation', string)}, mode {get(p, 'mode', string)}, "
          f"{get(p, 'streams', uint)} streams x {get(p, 'chunks', uint)} chunks, "
          f"{get(p, 'max-in-flight', uint)} frames in flight, "
          f"batch {get(p, 'batch', uint)}")
    print(f"frames:    {get(p, 'frame-bytes', u64)} bytes, {get(p, 'caps', string)}")
    for i, win in enumerate(summary.windows):
        print(f"window {i + 1:3}: {get(win, 'frames', u64):4} frames at "
              f"{get(win, 'fps', dbl):9.1f} frames/s; {summary.place(win)}")
    print(f"whole run: {get(w, 'frames', u64)} frames at {get(w, 'fps', dbl):.1f} "
          f"frames/s ({len(summary.windows)} statistics windows before it)")
    print(f"stream:    {summary.place(w)}")
    print(f"latency:   host p50 {ms(w, 'latency-p50'):.3f} ms, "
          f"p99 {ms(w, 'latency-p99'):.3f} ms, max {ms(w, 'latency-max'):.3f} ms; "
          f"device p50 {ms(w, 'gpu-latency-p50'):.3f} ms, "
          f"p99 {ms(w, 'gpu-latency-p99'):.3f} ms")
    print(f"device:    busy {ms(w, 'gpu-busy-ns'):.3f} ms (H2D {ms(w, 'h2d-ns'):.3f}, "
          f"kernels {ms(w, 'kernel-ns'):.3f}, D2H {ms(w, 'd2h-ns'):.3f}), "
          f"overlap efficiency {get(w, 'overlap-efficiency', dbl):.3f}, "
          f"copies under compute {ms(w, 'copy-compute-overlap-ns'):.3f} ms")
    print(f"memory:    {get(w, 'frames-pinned', u64)} pinned, "
          f"{get(w, 'frames-registered', u64)} registered, "
          f"{get(w, 'frames-pageable', u64)} pageable, "
          f"{get(w, 'frames-staged', u64)} staged frames")
    counted = get(w, "frames", u64)
    if counted != frames:
        print(f"the whole run counted {counted} frames, not {frames}",
              file=sys.stderr)
        return False
    if get(w, "timestamp", u64) == Gst.CLOCK_TIME_NONE:
        print("the whole run has no timestamp (videotestsrc's buffers have one)",
              file=sys.stderr)
        return False
    return not summary.missing


def main():
    a = parse_args()
    Gst.init(None)
    desc = (f"videotestsrc num-buffers={a.frames} "
            f"! video/x-raw,format={a.format},width={a.width},height={a.height} "
            f"! cudavideofilter operation={a.operation} backend={a.backend} "
            f"streams={a.streams} chunks={a.chunks} "
            f"stats-interval={a.stats_interval} ! fakesink")
    print(f"pipeline: {desc}")
    try:
        pipeline = Gst.parse_launch(desc)
    except GLib.Error as e:
        print(f"cannot build the pipeline: {e.message}", file=sys.stderr)
        return 1
    summary = Summary()
    ok = run(pipeline, summary) and print_summary(summary, a.frames)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
