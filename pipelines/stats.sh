#!/bin/sh
# Print the passport and a statistics message every half second while
# cudavideofilter blurs 1080p video (GPU when present, else CPU backend).
here=$(cd "$(dirname "$0")/.." && pwd)
b=${1:-build}; case $b in /*) ;; *) b=$here/$b;; esac
export GST_PLUGIN_PATH="$b/plugin${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
exec gst-launch-1.0 -m videotestsrc num-buffers=120 \
  ! video/x-raw,format=RGBA,width=1920,height=1080 \
  ! cudavideofilter operation=box-blur radius=8 stats-interval=500000000 \
  ! fakesink 2>&1 | grep -E 'cudaoverlap-(stats|passport)'
