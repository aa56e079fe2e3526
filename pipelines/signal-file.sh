#!/bin/sh
# A signal example: a 2-channel F32LE stream (think SDR I/Q) at 2.4 MHz is
# written to a raw file, then read back in buffers of 1 M frames, filtered
# by cudaaudiofilter (a moving average of TAPS taps) and written to another raw file.
# Prints both sizes (equal: no tail at EOS) and the whole-run statistics.
#   pipelines/signal-file.sh [BUILD] [SECONDS]
# Environment: TAPS (default 255), BACKEND (auto, cuda or cpu), STREAMS,
#   CHUNKS (default 4 and 4), MODE (overlap or serial), DIR (default: a
#   temporary folder, removed at the end unless KEEP=1).
set -e
build=${1:-build}
seconds=${2:-4}
here=$(cd "$(dirname "$0")/.." && pwd)
export GST_PLUGIN_PATH="$here/$build/plugin${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
export GST_REGISTRY_1_0="$here/$build/demo-registry.bin"
rate=2400000
frames=1048576                  # per buffer
bpf=8                           # 2 channels of F32
n=${TAPS:-255}
dir=${DIR:-$(mktemp -d)}
in="$dir/signal-in.f32"
out="$dir/signal-out.f32"
# a low-pass moving average: n taps of 1/n
taps=$(awk -v n="$n" 'BEGIN { printf "<"; for (k = 0; k < n; k++)
  printf "%s%.9g", (k ? ", " : ""), 1 / n; printf ">" }')

nbuf=$(( (rate * seconds + frames - 1) / frames ))
echo "signal-file: writing $nbuf buffers of $frames frames (2ch F32LE, $rate Hz) to $in"
gst-launch-1.0 -q audiotestsrc wave=white-noise num-buffers=$nbuf \
    samplesperbuffer=$frames \
  ! audio/x-raw,format=F32LE,rate=$rate,channels=2,layout=interleaved \
  ! filesink location="$in"

echo "signal-file: filtering with $n taps"
# (the queue puts rawaudioparse in push mode: it then keeps filesrc's
# blocks of 1 M frames; pulling, it would read 8192 frames at a time)
gst-launch-1.0 -m filesrc location="$in" blocksize=$((frames * bpf)) \
  ! queue ! rawaudioparse use-sink-caps=false format=pcm pcm-format=f32le \
      sample-rate=$rate num-channels=2 interleaved=true \
  ! cudaaudiofilter operation=fir taps="$taps" backend=${BACKEND:-auto} \
      streams=${STREAMS:-4} chunks=${CHUNKS:-4} mode=${MODE:-overlap} \
      stats-interval=0 \
  ! filesink location="$out" 2>&1 \
  | sed -n -e 's/^.*\(cudaoverlap-stats.*whole-run.*\)$/\1/p' \
      -e 's/^.*\(cudaoverlap-passport.*\)$/\1/p' -e '/ERROR/p' \
  | tr ',' '\n' | sed 's/^ //' \
  | grep -E 'passport|stats|device-name|backend|^frames=|fps|kernel-ns|h2d-ns|d2h-ns|overlap-efficiency|ERROR' || true

isz=$(stat -c %s "$in")
osz=$(stat -c %s "$out")
echo "signal-file: input  $isz bytes ($((isz / bpf)) frames)"
echo "signal-file: output $osz bytes ($((osz / bpf)) frames)"
if [ "$KEEP" != 1 ] && [ -z "$DIR" ]; then rm -rf "$dir"; fi
[ "$isz" = "$osz" ] || { echo "signal-file: sizes differ" >&2; exit 1; }
