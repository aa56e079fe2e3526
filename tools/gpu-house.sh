#!/usr/bin/env bash
# Issues 12 and 13 on the lent GPU machine, in one bounded command:
#   source .gpu/gst/env.sh && tools/gpu-house.sh [build]
# - a smoke pipeline, then every GPU test program (tests/run-gpu-tests.sh:
#   the video, audio, stats, engine and torture suites with the CUDA
#   backend, nothing may skip);
# - compute-sanitizer memcheck / racecheck / synccheck on short pipelines,
#   and memcheck on the torture suite's shared-host-memory case;
# - the old and the new plugin side by side on the same frames: 4K RGBA
#   rows at 2x1 and 8x4, each as a ratio to the raw ceiling of the same
#   call (CO_HOUSE_OLD: folder holding the old build's plugin, default
#   build-old/plugin; absent: the new one only);
# - CO_HOUSE_SOAK=SECONDS: a soak (tools/soak.sh) of a 4K pipeline with
#   renegotiations, seeks and property changes, host RSS and device memory
#   sampled, run alongside the suites and the sanitizer (after the benches);
# - CO_HOUSE_SANITIZE_TESTS="exe:test_case ...": suite cases under memcheck
#   and racecheck.
# Each step is bounded and runs only if it fits in CO_HOUSE_BUDGET s
# (default 540).  Logs: $OUT/house-logs.tgz.  A short table is printed last.
set -u
export CO_GPU_TEST_TIMEOUT=${CO_GPU_TEST_TIMEOUT:-200}
# shellcheck source=gpu-lib.sh
source "$(dirname "$0")/gpu-lib.sh" house "${1:-build}" "${CO_HOUSE_BUDGET:-540}"
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)

timeout 30 gst-launch-1.0 -q videotestsrc num-buffers=60 ! \
  video/x-raw,format=RGBA,width=1920,height=1080 ! cudavideofilter backend=cuda \
  ! fakesink > "$out/smoke.log" 2>&1
rc=$?
if [ $rc != 0 ]; then
  echo "smoke pipeline failed (rc $rc; 124: hung)"; tail -5 "$out/smoke.log"; pack; exit 1
fi
sum+=("smoke pipeline ok")

# old and new plugin on the same frames, one call
# CO_HOUSE_NEW: the new plugin to measure (a release build: the test build's
# fault points cost an atomic read per device call)
new=${CO_HOUSE_NEW:-$here/$build/plugin}
case $new in /*) ;; *) new=$here/$new ;; esac
variants=("new:$new")
old=${CO_HOUSE_OLD:-$here/build-old/plugin}
case $old in /*) ;; *) old=$here/$old ;; esac
[ -f "$old/libgstcudaoverlap.so" ] && variants+=("old:$old")
for round in $(seq 1 "${CO_HOUSE_ROUNDS:-2}"); do
  for v in "${variants[@]}"; do
    tag=${v%%:*}
    for cfg in "2 1" "8 4"; do
      set -- $cfg
      fits 40 "bench $tag $1x$2 round $round" || continue
      GST_PLUGIN_PATH=${v#*:} GST_REGISTRY_1_0=/tmp/co-registry-$tag.bin timeout 40 \
        "$b" --frames 300 --only raw,overlap,pinned,registered --streams "$1" \
        --chunks "$2" --csv "$out/bench-$tag-$1x$2-r$round.csv" \
        > "$out/bench-$tag-$1x$2-r$round.log" 2>&1
      sum+=("bench $tag $1x$2 round $round rc $?")
    done
  done
  pack
done

# The soak runs alongside the suites and the sanitizer (not the benches):
# it measures memory, not speed.
soak_pid=
if [ -n "${CO_HOUSE_SOAK:-}" ] && fits $((CO_HOUSE_SOAK + 40)) soak; then
  "$here/tools/soak.sh" "$CO_HOUSE_SOAK" "$out/soak" > "$out/soak.log" 2>&1 &
  soak_pid=$!
fi

if [ "${CO_HOUSE_TESTS:-1}" != 0 ] && fits 240 tests; then
  "$here/tests/run-gpu-tests.sh" "$build" > "$out/gpu-tests.log" 2>&1
  sum+=("gpu tests rc $?")
  cp -r "$here/$build/gpu-test-logs" "$out/" 2>/dev/null
  pack
fi

if fits 120 sanitizer; then
  blur="NV12,width=1921,height=1081 ! cudavideofilter operation=box-blur radius=5 streams=3 chunks=5"
  for run in "memcheck|$blur" \
             "memcheck|RGBA,width=1921,height=1081 ! cudavideofilter operation=invert streams=3 chunks=5 pool-budget=0" \
             "memcheck|RGBA,width=641,height=363 ! cudavideofilter operation=invert streams=2 chunks=3 submit-thread=true" \
             "memcheck|NV12,width=641,height=363 ! cudavideofilter operation=box-blur radius=3 streams=2 chunks=3 batch=4" \
             "racecheck|$blur" "synccheck|$blur"; do
    sanitize_pipeline "${run%%|*}" "${run#*|}"
  done
  for t in ${CO_HOUSE_SANITIZE_TESTS:-}; do
    # one suite case under a tool, e.g. memcheck:test-torture:test_held_tee
    tool=${t%%:*}; t=${t#*:}; exe=${t%%:*}; case_=${t#*:}
    fits 100 "sanitizer $tool $t" || continue
    echo "=== $tool $t" >> "$out/sanitizer.log"
    GST_CHECKS=$case_ CO_TEST_BACKEND=cuda CK_FORK=no CO_TORTURE_SLOW=10 timeout 100 \
      "$cs" --tool "$tool" --error-exitcode 9 "$here/$build/tests/$exe" \
      >> "$out/sanitizer.log" 2>&1
    sum+=("sanitizer $tool $t rc $?")
  done
  pack
fi

if [ -n "$soak_pid" ]; then
  wait "$soak_pid"
  sum+=("soak ${CO_HOUSE_SOAK} s rc $? (alongside the tests and sanitizer)")
  pack
fi

printf '%s\n' "${sum[@]}"
grep -E '^(PASS|FAIL|SKIP)|passed' "$out/gpu-tests.log" 2>/dev/null
echo "elapsed $(( $(date +%s) - T0 )) s"
for f in "$out"/bench-*.log; do
  [ -f "$f" ] || continue
  echo "== $(basename "$f")"
  grep -E '^\| (raw-best|element)' "$f" | cut -c1-150
done
tail -6 "$out/soak.log" 2>/dev/null
pack
exit 0
