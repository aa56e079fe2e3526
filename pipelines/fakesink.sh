#!/bin/sh
# The pipeline make check runs: a few odd-sized frames through every
# operation, ending in fakesink.  Exits non-zero if any run fails.
#   pipelines/fakesink.sh [BUILD]
# BUILD: the meson build folder, absolute or relative to the current folder
#   (default: build/ at the top of the source tree).
. "$(dirname "$0")/common.sh"
co_build "$@"
for op in invert "gamma gamma=2.2" "box-blur radius=3"; do
  gst-launch-1.0 -q videotestsrc num-buffers=10 pattern=snow \
    ! video/x-raw,format=I420,width=321,height=241 \
    ! cudavideofilter operation=$op streams=3 chunks=5 ! fakesink || exit 1
done
gst-launch-1.0 -q audiotestsrc num-buffers=10 ! audio/x-raw,format=F32LE,channels=2 \
  ! cudaaudiofilter operation=fir taps="<0.25, 0.5, 0.25>" ! fakesink || exit 1
echo "pipelines ok"
