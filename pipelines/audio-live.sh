#!/bin/sh
# Live audio through cudaaudiofilter: white noise low-pass filtered by a
# 63-tap windowed-sinc FIR (cut-off CUTOFF Hz at 48 kHz), then played.
#   pipelines/audio-live.sh [BUILD]
# BUILD: the meson build folder, absolute or relative to the current folder
#   (default: build/ at the top of the source tree).
# Environment: CUTOFF (Hz, default 1000), TAPS (odd, default 63),
#   NUM_BUFFERS (default -1: until interrupted), SINK (default autoaudiosink;
#   fakesink where there is no sound card), BACKEND (auto, cuda or cpu).
# On the CPU backend (no GPU) it runs the same, on worker threads.
. "$(dirname "$0")/common.sh"
co_build "$@"
rate=48000
cutoff=${CUTOFF:-1000}
n=${TAPS:-63}
# h[k] = w[k] sinc(2 fc (k - M)), Hamming window, normalised to unit DC gain
taps=$(awk -v n="$n" -v fc="$cutoff" -v fs="$rate" 'BEGIN {
  pi = 3.14159265358979; m = (n - 1) / 2; f = fc / fs; s = 0
  for (k = 0; k < n; k++) {
    x = k - m
    h[k] = (x == 0) ? 2 * f : sin(2 * pi * f * x) / (pi * x)
    h[k] *= 0.54 - 0.46 * cos(2 * pi * k / (n - 1)); s += h[k]
  }
  printf "<"
  for (k = 0; k < n; k++) printf "%s%.9g", (k ? ", " : ""), h[k] / s
  printf ">"
}')
echo "audio-live: $n-tap low-pass at $cutoff Hz on white noise, $rate Hz stereo"
exec gst-launch-1.0 audiotestsrc is-live=true wave=white-noise volume=0.3 \
    num-buffers=${NUM_BUFFERS:--1} samplesperbuffer=1024 \
  ! audioconvert ! audio/x-raw,format=F32LE,rate=$rate,channels=2 \
  ! cudaaudiofilter operation=fir taps="$taps" backend=${BACKEND:-auto} \
      stats-interval=0 \
  ! audioconvert ! ${SINK:-autoaudiosink}
