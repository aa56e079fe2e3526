#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""cudaoverlap example: a kernel of your own from Python (PyGObject).

Runs videotestsrc ! GRAY8 ! cudavideofilter operation=custom (the Sobel
example of examples/kernels, docs/custom-kernels.md) ! appsink, and
compares every output byte with a naive Sobel computed here from the
documented arithmetic:

    python3 custom-kernel.py --kernels build/examples/kernels [--backend cuda]

On the CPU backend the element calls the example's C function
(libco-sobel-cpu.so), on the GPU its PTX (sobel.ptx).  Exit status: 0 when
every byte matches; 1 on an error message or a mismatch; 77 (a skipped
test) without PyGObject or GStreamer's introspection data.
"""
import argparse
import os
import sys

try:
    import gi

    gi.require_version("Gst", "1.0")
    from gi.repository import Gst
except (ImportError, ValueError) as e:
    print(f"SKIP: {sys.executable} has no PyGObject with GStreamer 1.0 ({e}): "
          "install python3-gst-1.0 (Debian)", file=sys.stderr)
    sys.exit(77)


def sobel(pix, w, h, stride):
    """The example's arithmetic: |gx| + |gy| over the 3x3 window with the
    picture's edge replicated, saturated at 255."""
    def p(x, y):
        x = min(max(x, 0), w - 1)
        y = min(max(y, 0), h - 1)
        return pix[y * stride + x]

    out = bytearray(w * h)
    for y in range(h):
        for x in range(w):
            gx = (p(x + 1, y - 1) + 2 * p(x + 1, y) + p(x + 1, y + 1)
                  - p(x - 1, y - 1) - 2 * p(x - 1, y) - p(x - 1, y + 1))
            gy = (p(x - 1, y + 1) + 2 * p(x, y + 1) + p(x + 1, y + 1)
                  - p(x - 1, y - 1) - 2 * p(x, y - 1) - p(x + 1, y - 1))
            out[y * w + x] = min(255, abs(gx) + abs(gy))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kernels", required=True,
                    help="the folder of sobel.ptx and libco-sobel-cpu.so")
    ap.add_argument("--backend", default="auto")
    ap.add_argument("--width", type=int, default=67)
    ap.add_argument("--height", type=int, default=35)
    ap.add_argument("--frames", type=int, default=3)
    ap.add_argument("--chunks", type=int, default=5)
    args = ap.parse_args()

    Gst.init(None)
    w, h = args.width, args.height
    pipe = Gst.parse_launch(
        f"videotestsrc num-buffers={args.frames} pattern=snow ! "
        f"video/x-raw,format=GRAY8,width={w},height={h} ! tee name=t "
        "t. ! queue ! appsink name=src_frames sync=false "
        "t. ! queue ! cudavideofilter name=f ! appsink name=out sync=false")
    f = pipe.get_by_name("f")
    f.set_property("kernel-module", os.path.join(args.kernels, "sobel.ptx"))
    f.set_property("kernel-name", "co_sobel")
    f.set_property("kernel-halo", 1)
    f.set_property("kernel-formats", "GRAY8, RGBA")
    f.set_property("kernel-cpu-library",
                   os.path.join(args.kernels, "libco-sobel-cpu.so"))
    f.set_property("kernel-cpu-symbol", "co_sobel_cpu")
    f.set_property("chunks", args.chunks)
    Gst.util_set_object_arg(f, "backend", args.backend)
    Gst.util_set_object_arg(f, "operation", "custom")

    ins, outs = pipe.get_by_name("src_frames"), pipe.get_by_name("out")
    pipe.set_state(Gst.State.PLAYING)
    bad = 0
    for i in range(args.frames):
        a = ins.emit("try-pull-sample", 30 * Gst.SECOND)
        b = outs.emit("try-pull-sample", 30 * Gst.SECOND)
        if a is None or b is None:
            break
        stride = (w + 3) & ~3  # GRAY8 rows in system memory: 4-byte aligned
        src = a.get_buffer().extract_dup(0, a.get_buffer().get_size())
        dst = b.get_buffer().extract_dup(0, b.get_buffer().get_size())
        want = sobel(src, w, h, stride)
        got = bytearray(dst[y * stride + x] for y in range(h) for x in range(w))
        if got != want:
            bad += 1
            print(f"frame {i}: differs from the reference", file=sys.stderr)
    else:
        i = args.frames
    msg = pipe.get_bus().pop_filtered(Gst.MessageType.ERROR)
    pipe.set_state(Gst.State.NULL)
    if msg:
        err, dbg = msg.parse_error()
        print(f"error: {err.message} ({dbg})", file=sys.stderr)
        return 1
    if i < args.frames or bad:
        print(f"{i} of {args.frames} frames came, {bad} differ", file=sys.stderr)
        return 1
    print(f"{args.frames} frames of {w}x{h} GRAY8 through operation=custom "
          f"(co_sobel, backend {args.backend}): every byte as the reference")
    return 0


if __name__ == "__main__":
    sys.exit(main())
