#!/bin/sh
# Test source to display: a gamma-corrected moving ball, until the window
# is closed or the script interrupted.
#   pipelines/display.sh [BUILD]
# BUILD: the meson build folder, absolute or relative to the current folder
#   (default: build/ at the top of the source tree).
# Environment: NUM_BUFFERS (default -1: until interrupted), SINK (default
#   autovideosink).
. "$(dirname "$0")/common.sh"
co_build "$@"
exec gst-launch-1.0 videotestsrc pattern=ball num-buffers=${NUM_BUFFERS:--1} \
  ! video/x-raw,format=NV12,width=1280,height=720 \
  ! cudavideofilter operation=gamma gamma=2.2 ! videoconvert ! ${SINK:-autovideosink}
