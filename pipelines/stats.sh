#!/bin/sh
# Print the passport and a statistics message every half second while
# cudavideofilter blurs 1080p video (GPU when present, else CPU backend),
# one field a line.
#   pipelines/stats.sh [BUILD]
# BUILD: the meson build folder, absolute or relative to the current folder
#   (default: build/ at the top of the source tree).
# Environment: FRAMES (default 120), FIELDS (the statistics fields to
#   print, comma-separated, or all; default frames,fps,latency-p50,
#   latency-p99,gpu-busy-ns,overlap-efficiency; docs/stats.md defines them).
. "$(dirname "$0")/common.sh"
co_build "$@"
co_need_run
fields=${FIELDS:-frames,fps,latency-p50,latency-p99,gpu-busy-ns,overlap-efficiency}
[ "$fields" = all ] && fields=
exec "$CO_RUN" ${fields:+--fields "$fields"} videotestsrc num-buffers="${FRAMES:-120}" \
  ! video/x-raw,format=RGBA,width=1920,height=1080 \
  ! cudavideofilter operation=box-blur radius=8 stats-interval=500000000 \
  ! fakesink
