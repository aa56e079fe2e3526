#!/bin/sh
# File to file: raw I420 frames in, blurred raw frames out.
#   pipelines/file-to-file.sh [build] [in.yuv] [out.yuv]
here=$(cd "$(dirname "$0")/.." && pwd)
b=${1:-build}; case $b in /*) ;; *) b=$here/$b;; esac
export GST_PLUGIN_PATH="$b/plugin${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
in=${2:-/tmp/cudaoverlap-in.yuv}; out=${3:-/tmp/cudaoverlap-out.yuv}
caps="video/x-raw,format=I420,width=1921,height=1081,framerate=30/1"
[ -f "$in" ] || gst-launch-1.0 -q videotestsrc num-buffers=30 pattern=smpte ! "$caps" ! filesink location="$in"
gst-launch-1.0 -q filesrc location="$in" ! rawvideoparse format=i420 width=1921 height=1081 framerate=30/1 \
  ! cudavideofilter operation=box-blur radius=3 ! filesink location="$out" &&
  echo "wrote $out ($(stat -c %s "$out") bytes from $(stat -c %s "$in"))"
