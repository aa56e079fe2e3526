#!/bin/sh
# File to file: raw I420 frames in, blurred raw frames out.
#   pipelines/file-to-file.sh [BUILD] [IN.yuv] [OUT.yuv]
# BUILD: the meson build folder, absolute or relative to the current folder
#   (default: build/ at the top of the source tree).
# IN.yuv (default /tmp/cudaoverlap-in.yuv): 1921x1081 I420 frames at 30/s,
#   30 frames of videotestsrc written there when the file is missing;
# OUT.yuv (default /tmp/cudaoverlap-out.yuv).
. "$(dirname "$0")/common.sh"
co_build "$@"
in=${2:-/tmp/cudaoverlap-in.yuv}; out=${3:-/tmp/cudaoverlap-out.yuv}
caps="video/x-raw,format=I420,width=1921,height=1081,framerate=30/1"
[ -f "$in" ] || gst-launch-1.0 -q videotestsrc num-buffers=30 pattern=smpte ! "$caps" ! filesink location="$in"
gst-launch-1.0 -q filesrc location="$in" ! rawvideoparse format=i420 width=1921 height=1081 framerate=30/1 \
  ! cudavideofilter operation=box-blur radius=3 ! filesink location="$out" &&
  echo "wrote $out ($(stat -c %s "$out") bytes from $(stat -c %s "$in"))"
