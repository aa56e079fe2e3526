#!/bin/sh
# A signal example: a 2-channel F32LE stream (think SDR I/Q) at 2.4 MHz is
# written to a raw file, then read back in buffers of 1 M frames, filtered
# by cudaaudiofilter (a moving average of TAPS taps) and written to another
# raw file.
# Prints the passport, the whole-run statistics and both sizes (equal: no
# tail at EOS).
#   pipelines/signal-file.sh [BUILD] [SECONDS]
# BUILD: the meson build folder, absolute or relative to the current folder
#   (default: build/ at the top of the source tree).
# SECONDS: the signal's length (default 4).
# Environment: TAPS (default 255), BACKEND (auto, cuda or cpu), STREAMS,
#   CHUNKS (default 4 and 4), MODE (overlap or serial), DIR (the folder of
#   the two files; default: a temporary folder, removed at the end unless
#   KEEP=1), FIELDS (the statistics fields to print, comma-separated;
#   default frames,fps,h2d-ns,kernel-ns,d2h-ns,overlap-efficiency).
set -e
. "$(dirname "$0")/common.sh"
co_build "$@"
co_need_run
seconds=${2:-4}
rate=2400000
frames=1048576                  # per buffer
bpf=8                           # 2 channels of F32
n=${TAPS:-255}
if [ -n "$DIR" ]; then
  dir=$DIR
  mkdir -p "$dir"
else
  dir=$(mktemp -d)
  [ "$KEEP" = 1 ] || trap 'rm -rf "$dir"' EXIT
fi
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
"$CO_RUN" --whole-run \
    --fields "${FIELDS:-frames,fps,h2d-ns,kernel-ns,d2h-ns,overlap-efficiency}" \
    filesrc location="$in" blocksize=$((frames * bpf)) \
  ! queue ! rawaudioparse use-sink-caps=false format=pcm pcm-format=f32le \
      sample-rate=$rate num-channels=2 interleaved=true \
  ! cudaaudiofilter operation=fir taps="$taps" backend=${BACKEND:-auto} \
      streams=${STREAMS:-4} chunks=${CHUNKS:-4} mode=${MODE:-overlap} \
      stats-interval=0 \
  ! filesink location="$out"

isz=$(stat -c %s "$in")
osz=$(stat -c %s "$out")
echo "signal-file: input  $isz bytes ($((isz / bpf)) frames)"
echo "signal-file: output $osz bytes ($((osz / bpf)) frames)"
[ "$isz" = "$osz" ] || { echo "signal-file: sizes differ" >&2; exit 1; }
