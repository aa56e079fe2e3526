#!/bin/sh
# The main pipeline: 4K RGBA frames from videotestsrc inverted by
# cudavideofilter, on the GPU when one is usable, else on the CPU backend.
# Prints the run's passport and the whole-run statistics.
build=${1:-build}
here=$(cd "$(dirname "$0")/.." && pwd)
export GST_PLUGIN_PATH="$here/$build/plugin${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
export GST_REGISTRY_1_0="$here/$build/demo-registry.bin"
n=300
if [ -e /dev/nvidia0 ] || [ -e /dev/nvidiactl ]; then
  echo "demo: a GPU is present: cudavideofilter will use the CUDA backend"
else
  echo "demo: no GPU here: cudavideofilter runs on its CPU backend (same results)"
  n=30
fi
gst-launch-1.0 -m videotestsrc num-buffers=$n pattern=ball \
  ! video/x-raw,format=RGBA,width=3840,height=2160,framerate=60/1 \
  ! cudavideofilter operation=invert streams=4 chunks=4 stats-interval=0 \
  ! fakesink 2>&1 | sed -n -e 's/^.*\(cudaoverlap-passport.*\)$/\1/p' \
      -e 's/^.*\(cudaoverlap-stats.*whole-run.*\)$/\1/p' \
      -e '/ERROR/p' -e '/Execution ended/p' | tr ',' '\n' | sed 's/^ //' \
  | grep -E 'passport|stats|device-name|backend|streams|chunks|^frames=|fps|latency-p50|overlap-efficiency|ERROR|Execution'
