#!/usr/bin/env bash
# Issue 17's rows (automatic settings, kinds of host memory, pipelines and
# processes, first frame) in one bounded command on the lent GPU machine:
#   source .gpu/gst/env.sh && tools/gpu-issue17.sh [build]
# Every row checks every output frame (see cudaoverlap-bench); the raw
# ceiling of the same call is in each log.  Logs and CSVs:
# $OUT/issue17-logs.tgz (or ./gpu-logs), re-packed after every step.  Each
# step is bounded and runs only if it fits in CO_I17_BUDGET s (default 540):
# the whole table does not fit one call; CO_I17_STEPS (a space-separated
# list of step names) runs some of them.  CO_I17_FRAMES scales the frame
# counts (e.g. 0.02 with CO_I17_BACKEND=cpu for a dry run on the CPU).
set -u
scale=${CO_I17_FRAMES:-1}
backend=${CO_I17_BACKEND:-auto}
steps=${CO_I17_STEPS:-}
# shellcheck source=gpu-lib.sh
source "$(dirname "$0")/gpu-lib.sh" issue17 "${1:-build}" "${CO_I17_BUDGET:-540}"
n() { awk -v n="$1" -v s="$scale" 'BEGIN { v = int (n * s); print (v < 2 ? 2 : v) }'; }

# name limit_s bench-arguments...
step() {
  local name=$1 limit=$2; shift 2
  [ -z "$steps" ] || [[ " $steps " == *" $name "* ]] || return
  fits "$limit" "$name" || return
  timeout "$limit" "$b" --backend "$backend" "$@" --csv "$out/$name.csv" > "$out/$name.log" 2>&1
  sum+=("$name rc $?"); pack
}

# the first frame, before anything else of the process touches the GPU
step first-frame-4k 60 --frames "$(n 30)" --only raw,overlap,registered --first-frame --defaults
# defaults against the raw ceiling and the hand-tuned rows (non-live)
step defaults-4k-rgba 120 --frames "$(n 600)" --only raw,overlap,pinned,registered \
  --streams 4 --chunks 1 --defaults
step defaults-1080p-rgba 150 --width 1920 --height 1080 --frames "$(n 1500)" \
  --only raw,overlap,pinned --defaults --sweep
step defaults-4k-nv12 150 --format NV12 --frames "$(n 1000)" --only raw,overlap,pinned \
  --defaults --sweep
step defaults-gray8 90 --width 640 --height 480 --format GRAY8 --frames "$(n 20000)" \
  --only raw,overlap,pinned --streams 8 --chunks 1 --defaults
# live: defaults against the hand-tuned 8 x 4 spin row of the same call
step defaults-4k-live 90 --frames "$(n 200)" --only raw,overlap,pinned --streams 8 \
  --chunks 4 --live 60 --live-frames "$(n 120)" --props wait-mode=spin --defaults
# kinds of host memory: a new GstMemory per frame over malloc()ed and
# application page-locked rings, fresh memory per frame, the pool; the
# wrapped ring is the bench's own copy (staged frames), and the memcpy rows
# give the other ceiling (the summary: x the lower of raw and memcpy-best)
step input-4k 120 --frames "$(n 300)" --only raw,overlap --streams 4 --chunks 1 \
  --input pinned,registered,wrapped,fresh,app-pinned --defaults
# eight pipelines at once, defaults, recurring memory (the defaults share the
# device's 8 hardware queues: 2 streams each), and the control: the same
# eight at 4 x 1 set (the defaults before the device was shared: 32 streams)
step pipelines-1080p 120 --width 1920 --height 1080 --frames "$(n 1000)" \
  --only raw,overlap,registered --defaults --pipelines 8
step pipelines-1080p-s4 100 --width 1920 --height 1080 --frames "$(n 1000)" \
  --only raw,overlap,registered --streams 4 --chunks 1 --pipelines 8
# the same eight at 1 stream each (8 streams on 8 queues, as the raw
# 8-client row with 1 stream each)
step pipelines-1080p-s1 100 --width 1920 --height 1080 --frames "$(n 1000)" \
  --only raw,overlap,registered --streams 1 --chunks 1 --pipelines 8
# the defaults' pipelines warmed up one at a time (the control of the
# warm-up of the eight at once: their pools grow in the timed frames)
step pipelines-1080p-warm1 120 --width 1920 --height 1080 --frames "$(n 1000)" \
  --only raw,overlap,registered --defaults --pipelines 8 --warm-up-one
# the same eight, each in a process of its own (a CUDA context each, on the
# one GPU)
step processes-1080p 120 --width 1920 --height 1080 --frames "$(n 1000)" \
  --only raw,overlap,registered --defaults --processes 8
# box blur r = 16: the bench checks invert only, so this row is the element's
# own check tool, defaults against 4 x 1 and 4 x 4 (its statistics)
if [ -z "$steps" ] || [[ " $steps " == *" blur16 "* ]]; then
  if fits 90 blur16; then
    for sc in 0x0 4x1 4x4; do
      timeout 30 "$c" --backend "$backend" --video --radius 16 --streams "${sc%x*}" \
        --chunks "${sc#*x}" --frames "$(n 300)" > "$out/blur16-$sc.log" 2>&1
      sum+=("blur16 $sc rc $?")
    done
    pack
  fi
fi

printf '%s\n' "${sum[@]}"
echo "elapsed $(( $(date +%s) - T0 )) s"
for f in "$out"/*.log; do
  echo "== $(basename "$f")"
  grep -E '^\| (raw-best|raw-latency|raw-clients|memcpy-best|element|defaults|pipeline|process|first-frame)|^  (defaults|element)|^(auto|pipelines|processes|raw-clients|first-frame) |^RESULT' \
    "$f" | awk '!seen[$0]++' | cut -c1-200 | head -40
done
pack
exit 0
