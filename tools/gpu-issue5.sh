#!/usr/bin/env bash
# Issue 5's table in one bounded command on the lent GPU machine:
#   source .gpu/gst/env.sh && tools/gpu-issue5.sh [build]
# Every row checks every output frame (see cudaoverlap-bench).  Logs and
# CSVs: $OUT/issue5-logs.tgz (or ./gpu-logs), re-packed after every step so
# a run stopped by the device's limit still brings back what it did.  Each
# step is bounded and runs only if it fits in CO_I5_BUDGET s (default 540).
# CO_I5_FRAMES scales the frame counts (default 1; e.g. 0.05 for a dry run
# on the CPU backend with CO_I5_BACKEND=cpu).
set -u
scale=${CO_I5_FRAMES:-1}
backend=${CO_I5_BACKEND:-auto}
# shellcheck source=gpu-lib.sh
source "$(dirname "$0")/gpu-lib.sh" issue5 "${1:-build}" "${CO_I5_BUDGET:-540}"
n() { awk -v n="$1" -v s="$scale" 'BEGIN { v = int (n * s); print (v < 2 ? 2 : v) }'; }

# name limit_s bench-arguments...
step() {
  local name=$1 limit=$2; shift 2
  fits "$limit" "$name" || return
  timeout "$limit" "$b" --backend "$backend" "$@" --csv "$out/$name.csv" > "$out/$name.log" 2>&1
  sum+=("$name rc $?"); pack
}

step 4k-rgba-2x1 90 --frames "$(n 600)" --streams 2 --chunks 1 --live 60 --live-frames "$(n 120)"
# host CPU at 4 chunks with 1, 2 and 4 frames per submission (fewer launches,
# timing events and wake-ups per frame; a frame waits for its batch)
for nb in 1 2 4; do
  step "4k-rgba-8x4-batch$nb" 45 --frames "$(n 400)" --only raw,overlap,pinned \
    --streams 8 --chunks 4 --props "batch=$nb"
done
# live rows: the spinning wait (wait-mode=spin), raw one-frame latency of the
# same run; then where the time goes (trace_live)
for sc in 8x4 8x8; do
  step "4k-rgba-live-spin-$sc" 45 --frames "$(n 300)" --only raw,overlap,pinned \
    --streams "${sc%x*}" --chunks "${sc#*x}" --live 60 --live-frames "$(n 120)" \
    --props wait-mode=spin
  if fits 20 "trace live $sc"; then
    trace_live "live-spin-$sc" "${sc%x*}" "${sc#*x}" spin --backend "$backend"
    pack
  fi
done
step 1080p-rgba-sweep 120 --width 1920 --height 1080 --frames "$(n 1000)" --streams 4 \
  --chunks 1 --sweep
step 4k-nv12-2x1 60 --format NV12 --frames "$(n 1000)" --streams 2 --chunks 1
step gray8-sweep 120 --width 640 --height 480 --format GRAY8 --frames "$(n 10000)" \
  --streams 8 --chunks 1 --sweep
# small frames at their best setting: 8 frames per device submission
step gray8-batch8 60 --width 640 --height 480 --format GRAY8 --frames "$(n 10000)" \
  --streams 8 --chunks 1 --only raw,overlap,peer,pinned --props batch=8
if fits 60 fir-balanced; then
  timeout 60 "$c" --backend "$backend" --audio --cupti --taps 479 --buffers "$(n 400)" \
    > "$out/fir-balanced.log" 2>&1
  sum+=("fir-balanced (479 taps) rc $?"); pack
fi
step 4k-rgba-sweep 150 --frames "$(n 300)" --only raw,overlap,pinned,registered --sweep

printf '%s\n' "${sum[@]}"
echo "elapsed $(( $(date +%s) - T0 )) s"
for f in "$out"/*.log; do
  echo "== $(basename "$f")"
  grep -E '^\| (raw-best|raw-latency|element|peer|live|pre-submit|submit|to-device|device|wake|to-push)|^latency|^verdict|^RESULT' "$f" | awk '!seen[$0]++' | cut -c1-170 | head -24
done
pack
exit 0
