#!/usr/bin/env bash
# The GPU tests, compute-sanitizer, and the measurements of issues 3 and 5
# at a few settings, in one bounded command on the lent GPU machine.
#   source .gpu/gst/env.sh && tools/gpu-ab.sh [build]
# Logs: $OUT/ab-logs.tgz (or ./gpu-logs), re-packed after every step, so a
# run stopped by the device's time limit still brings back what it did.
# Each step is bounded by `timeout` and runs only if it fits in the budget
# (CO_AB_BUDGET s, default 540).  A short table is printed last.
# CO_AB_CHECKS: the streams x chunks of the CUPTI video checks, e.g. "4x1 4x4"
# (default 4x1 4x2 4x4).
# CO_AB_BENCH=0: no benches (the suites, checks and sanitizer only).
# CO_AB_ALT=DIR: also run the benches with the plugin in DIR (e.g. an
# experimental branch's build-exp/plugin; only the plugin .so is needed
# there, the tools are this build's), logs named bench-alt-*.
set -u
export CO_GPU_TEST_TIMEOUT=${CO_GPU_TEST_TIMEOUT:-150}
# shellcheck source=gpu-lib.sh
source "$(dirname "$0")/gpu-lib.sh" ab "${1:-build}" "${CO_AB_BUDGET:-540}"

# A hang in the simplest pipeline stops everything (CO_AB_SMOKE=0: skip it,
# for a dry run without a GPU).
[ "${CO_AB_SMOKE:-1}" = 0 ] || timeout 30 gst-launch-1.0 -q videotestsrc num-buffers=60 ! \
  video/x-raw,format=RGBA,width=1920,height=1080 ! cudavideofilter backend=cuda \
  ! fakesink > "$out/smoke.log" 2>&1
rc=$?
if [ $rc != 0 ]; then
  echo "smoke pipeline failed (rc $rc; 124: hung)"; tail -5 "$out/smoke.log"; pack; exit 1
fi
sum+=("smoke pipeline ok")

if fits 150 tests; then
  "$here/tests/run-gpu-tests.sh" "$build" > "$out/gpu-tests.log" 2>&1
  sum+=("gpu tests rc $?: $(grep -E '^(PASS|FAIL|SKIP)' "$out/gpu-tests.log" | tr '\n' ';')")
  cp -r "$here/$build/gpu-test-logs" "$out/" 2>/dev/null
  pack
fi

for cfg in ${CO_AB_CHECKS:-4x1 4x2 4x4}; do
  set -- ${cfg/x/ }
  fits 60 "check video $cfg" || continue
  CO_CHECK_TRACE_DIR=$out/traces-video-$1x$2 timeout 60 \
    "$c" --video --cupti --streams "$1" --chunks "$2" > "$out/check-video-$1x$2.log" 2>&1
  sum+=("check video $cfg rc $?"); pack
done
if fits 60 "check audio"; then
  timeout 60 "$c" --audio --cupti --buffers 400 > "$out/check-audio.log" 2>&1
  sum+=("check audio rc $?"); pack
fi

[ "${CO_AB_BENCH:-1}" = 0 ] && variants=() || variants=("main:$here/$build/plugin")
[ "${CO_AB_BENCH:-1}" != 0 ] && [ -n "${CO_AB_ALT:-}" ] && variants+=("alt:$(cd "$here" && cd "$CO_AB_ALT" && pwd)")
for v in "${variants[@]+"${variants[@]}"}"; do
  tag=${v%%:*}
  for cfg in "8 4" "2 1"; do
    set -- $cfg
    fits 60 "bench $tag $cfg" || continue
    GST_PLUGIN_PATH=${v#*:} GST_REGISTRY_1_0=/tmp/co-registry-$tag.bin timeout 60 \
      "$b" --frames 300 --only raw,overlap,pinned,registered --streams "$1" --chunks "$2" \
      --live 60 --live-frames 120 > "$out/bench-$tag-$1x$2.log" 2>&1
    sum+=("bench $tag $cfg rc $?"); pack
  done
done

# live latency with the spinning wait; then where it goes, spinning and
# blocking (trace_live)
for cfg in $( [ "${CO_AB_BENCH:-1}" = 0 ] || echo "8x4 4x8" ); do
  set -- ${cfg/x/ }
  fits 75 "bench spin live $cfg" || continue
  timeout 45 "$b" --frames 300 --only raw,overlap,pinned --streams "$1" --chunks "$2" \
    --live 60 --live-frames 120 --props "wait-mode=spin" > "$out/bench-spin-$1x$2.log" 2>&1
  sum+=("bench spin live $cfg rc $?")
  for w in spin blocking; do
    trace_live "live-$w-$1x$2" "$1" "$2" "$w"
  done
  pack
done

# compute-sanitizer on short pipelines: the pinned (pool) path of video, the
# registered path of audio
if fits 90 sanitizer; then
  cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  blur="NV12,width=1921,height=1081 ! cudavideofilter operation=box-blur radius=5 streams=3 chunks=5"
  for run in "memcheck|$blur" \
             "memcheck|RGBA,width=1921,height=1081 ! cudavideofilter operation=invert streams=3 chunks=5" \
             "memcheck|GRAY16_LE,width=333,height=77 ! cudavideofilter operation=gamma gamma=2.2 streams=2 chunks=3" \
             "memcheck|RGBA,width=641,height=363 ! cudavideofilter operation=invert streams=2 chunks=3 submit-thread=true" \
             "memcheck|NV12,width=641,height=363 ! cudavideofilter operation=box-blur radius=3 streams=2 chunks=3 batch=4" \
             "memcheck|RGBA,width=640,height=360 ! cudavideofilter operation=invert streams=2 chunks=3 batch=4" \
             "racecheck|$blur" "synccheck|$blur"; do
    sanitize_pipeline "${run%%|*}" "${run#*|}"
  done
  echo "=== memcheck audio" >> "$out/sanitizer.log"
  timeout 30 "$cs" --tool memcheck --error-exitcode 9 gst-launch-1.0 -q audiotestsrc num-buffers=8 \
    samplesperbuffer=100000 ! audio/x-raw,format=F32LE,channels=2,rate=2400000 ! \
    cudaaudiofilter operation=fir taps="<0.25,0.5,0.25,0.1,0.3>" backend=cuda streams=3 chunks=5 \
    ! fakesink >> "$out/sanitizer.log" 2>&1
  sum+=("sanitizer memcheck audio rc $?")
  pack
fi

printf '%s\n' "${sum[@]}"
echo "elapsed $(( $(date +%s) - T0 )) s"
for f in "$out"/bench-*.log; do
  [ -f "$f" ] || continue
  echo "== $(basename "$f")"
  grep -E '^\| (raw-best|raw-latency|element|live)|^threads|^latency' "$f" | awk '!seen[$0]++' | cut -c1-180
done
for f in "$out"/latency-*.log; do
  [ -f "$f" ] && cat "$f"
done
for f in "$out"/check-*.log; do
  [ -f "$f" ] || continue
  echo "== $(basename "$f")"
  grep -E '^\| (h2d-ns|kernel-ns|d2h-ns|gpu-busy-ns|overlap-efficiency)|frames/s|verdict' "$f" | head -20 | cut -c1-150
done
pack
exit 0
