#!/bin/sh
# The pipeline make check runs: a few odd-sized frames through every
# operation, ending in fakesink.  Exits non-zero if any run fails.
#   pipelines/fakesink.sh [build]
here=$(cd "$(dirname "$0")/.." && pwd)
b=${1:-build}; case $b in /*) ;; *) b=$here/$b;; esac
export GST_PLUGIN_PATH="$b/plugin${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
for op in invert "gamma gamma=2.2" "box-blur radius=3"; do
  gst-launch-1.0 -q videotestsrc num-buffers=10 pattern=snow \
    ! video/x-raw,format=I420,width=321,height=241 \
    ! cudavideofilter operation=$op streams=3 chunks=5 ! fakesink || exit 1
done
gst-launch-1.0 -q audiotestsrc num-buffers=10 ! audio/x-raw,format=F32LE,channels=2 \
  ! cudaaudiofilter operation=fir taps="<0.25, 0.5, 0.25>" ! fakesink || exit 1
echo "pipelines ok"
