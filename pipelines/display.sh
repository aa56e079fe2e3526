#!/bin/sh
# Test source to display: a gamma-corrected moving ball.
here=$(cd "$(dirname "$0")/.." && pwd)
b=${1:-build}; case $b in /*) ;; *) b=$here/$b;; esac
export GST_PLUGIN_PATH="$b/plugin${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
exec gst-launch-1.0 videotestsrc pattern=ball ! video/x-raw,format=NV12,width=1280,height=720 \
  ! cudavideofilter operation=gamma gamma=2.2 ! videoconvert ! autovideosink
