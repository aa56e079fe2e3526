#!/usr/bin/env bash
# A build's GPU checks on a machine with a GPU, in one bounded command,
# without rebuilding or installing anything:
#   tools/gpu/run-all.sh BUILD [GST_RUNTIME]
# BUILD: a build folder with the plugin, the test programs and the tools
# (tools/gpu/pack-build.sh makes a small one to carry); GST_RUNTIME: a
# GStreamer 1.22 runtime, when the machine has none installed (see lib.sh).
# Steps (CO_GPU_STEPS, default all, in this order):
#   smoke      one 1080p pipeline with backend=cuda (a hang stops the rest)
#   tests      every suite with the CUDA backend (tests/run-gpu-tests.sh;
#              nothing may skip)
#   sanitizer  compute-sanitizer memcheck, racecheck and synccheck on short
#              video pipelines, memcheck on an audio one
#   check      cudaoverlap-check: the statistics against CUPTI (video 4 x 1
#              and 4 x 4, audio), outputs against the CPU backend
#   bench      the bench gate (tools/bench/run-bench.sh; with CO_GPU_BENCH_CSV
#              set, tools/bench/compare.sh against that committed CSV)
# Each step is bounded by `timeout` and runs only if it fits in
# CO_GPU_BUDGET s (default 540).  Logs: CO_GPU_LOGS (default BUILD/gpu-logs)
# /run-all/.  A summary is printed last; the exit status is 1 when a step
# failed.
set -u
export CO_GPU_TEST_TIMEOUT=${CO_GPU_TEST_TIMEOUT:-150}
# shellcheck source=tools/gpu/lib.sh
source "$(dirname "$0")/lib.sh" run-all "${1:-}" "${2:-}"
steps=${CO_GPU_STEPS:-smoke tests sanitizer check bench}
want() { [[ " $steps " == *" $1 "* ]]; }
failed=0
note() { sum+=("$1 rc $2"); [ "$2" = 0 ] || failed=1; }

if want smoke; then
  timeout 30 gst-launch-1.0 -q videotestsrc num-buffers=60 ! \
    video/x-raw,format=RGBA,width=1920,height=1080 ! cudavideofilter backend=cuda \
    ! fakesink > "$out/smoke.log" 2>&1
  rc=$?
  if [ $rc != 0 ]; then
    echo "smoke pipeline failed (rc $rc; 124: it hung)"; tail -5 "$out/smoke.log"; exit 1
  fi
  sum+=("smoke pipeline ok")
fi

if want tests && fits 240 tests; then
  "$repo/tests/run-gpu-tests.sh" "$build" > "$out/gpu-tests.log" 2>&1
  note "gpu tests" $?
  grep -E '^(PASS|FAIL|SKIP)' "$out/gpu-tests.log" | sed 's/^/  /' >> "$out/tests-summary.txt"
  cp -r "$build/gpu-test-logs" "$out/" 2>/dev/null
fi

if want sanitizer && fits 120 sanitizer; then
  blur="NV12,width=1921,height=1081 ! cudavideofilter operation=box-blur radius=5 streams=3 chunks=5"
  for run in "memcheck|$blur" \
             "memcheck|RGBA,width=1921,height=1081 ! cudavideofilter operation=invert streams=3 chunks=5" \
             "memcheck|GRAY16_LE,width=333,height=77 ! cudavideofilter operation=gamma gamma=2.2 streams=2 chunks=3" \
             "memcheck|RGBA,width=641,height=363 ! cudavideofilter operation=invert streams=2 chunks=3 submit-thread=true" \
             "memcheck|NV12,width=641,height=363 ! cudavideofilter operation=box-blur radius=3 streams=2 chunks=3 batch=4" \
             "memcheck|P010_10LE,width=641,height=363 ! cudavideofilter operation=box-blur radius=4 streams=2 chunks=3" \
             "memcheck|YUY2,width=641,height=363 ! cudavideofilter operation=box-blur radius=5 streams=3 chunks=4" \
             "memcheck|RGB10A2_LE,width=641,height=363 ! cudavideofilter operation=gamma gamma=0.6 streams=2 chunks=3 batch=2" \
             "racecheck|$blur" "synccheck|$blur"; do
    sanitize_pipeline "${run%%|*}" "${run#*|}"
  done
  cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  echo "=== memcheck audio" >> "$out/sanitizer.log"
  timeout 30 "$cs" --tool memcheck --error-exitcode 9 gst-launch-1.0 -q audiotestsrc num-buffers=8 \
    samplesperbuffer=100000 ! audio/x-raw,format=F32LE,channels=2,rate=2400000 ! \
    cudaaudiofilter operation=fir taps="<0.25,0.5,0.25,0.1,0.3>" backend=cuda streams=3 chunks=5 \
    ! fakesink >> "$out/sanitizer.log" 2>&1
  note "sanitizer memcheck audio" $?
  grep -q 'rc [1-9]' <(printf '%s\n' "${sum[@]}" | grep sanitizer) && failed=1
fi

if want check; then
  for cfg in 4x1 4x4; do
    fits 60 "check video $cfg" || continue
    timeout 60 "$check" --video --cupti --streams "${cfg%x*}" --chunks "${cfg#*x}" \
      > "$out/check-video-$cfg.log" 2>&1
    note "check video $cfg" $?
  done
  if fits 60 "check audio"; then
    timeout 60 "$check" --audio --cupti --buffers 400 > "$out/check-audio.log" 2>&1
    note "check audio" $?
  fi
fi

if want bench && fits 240 bench; then
  if [ -n "${CO_GPU_BENCH_CSV:-}" ]; then
    timeout 360 "$repo/tools/bench/compare.sh" "$build" "$CO_GPU_BENCH_CSV" \
      "$out/bench" > "$out/bench.log" 2>&1
    note "bench-compare" $?
  else
    timeout 180 "$repo/tools/bench/run-bench.sh" "$build" "$out/bench.csv" \
      > "$out/bench.log" 2>&1
    note "bench" $?
  fi
fi

summary
cat "$out/tests-summary.txt" 2>/dev/null
[ -f "$out/bench.log" ] && grep -E '^\| (raw-best|element|defaults|control)|^FLAGGED|^compare' "$out/bench.log" | cut -c1-160
exit $failed
