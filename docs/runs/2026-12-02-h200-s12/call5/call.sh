#!/usr/bin/env bash
# session 12 call 5: the asynchronous staging on the GPU: every suite on
# CUDA, fresh torture seeds, compute-sanitizer on staged frames, and the
# wrapped rows (issue 17) with the release build
set -u
source .gpu/gst/env.sh
source tools/gpu-lib.sh call5 build-gpu 560
# 1. the suites (the fault-injection build: forced staging in the torture)
if fits 330 suites; then
  CO_GPU_TEST_TIMEOUT=300 "$here/tests/run-gpu-tests.sh" build-gpu > "$out/suites.log" 2>&1
  sum+=("suites rc $?: $(tail -1 "$out/suites.log")")
  mapfile -t bad < <(grep -E '^(FAIL|SKIP)' "$out/suites.log")
  for l in "${bad[@]}"; do sum+=("  $l"); done
  cp -r "$here/build-gpu/gpu-test-logs" "$out/" 2>/dev/null
  pack
fi
# 2. fresh seeds of the torture's caps/property cases on CUDA
torture=$here/build-gpu/tests/test-torture
if fits 100 seeds; then
  t_end=$(( $(date +%s) + 75 )); n=0; nb=0
  while [ "$(date +%s)" -lt "$t_end" ]; do
    seed=$(printf '0x%08x' $(( (RANDOM << 16) ^ RANDOM ^ (n << 24) )))
    CO_TEST_BACKEND=cuda CK_FORK=no CO_TEST_SEED=$seed CO_TORTURE_SCALE=2 \
      GST_CHECKS=test_props_vs_seeks,test_caps_renegotiation \
      timeout 50 "$torture" > "$out/seed-$seed.log" 2>&1
    rc=$?; n=$((n + 1))
    if [ $rc = 0 ]; then grep -h ' in, \|staged input' "$out/seed-$seed.log" >> "$out/seeds-runs.log"; rm -f "$out/seed-$seed.log"
    else nb=$((nb + 1)); echo "seed $seed FAILED rc $rc" >> "$out/seeds.log"; fi
  done
  sum+=("fresh seeds: $n runs, $nb failed"); pack
fi
# 3. compute-sanitizer on staged frames (the fault-injection build)
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
b=$here/build-gpu/tools/cudaoverlap-bench
for tool in memcheck synccheck; do
  fits 60 "sanitizer $tool" || break
  timeout 60 "$cs" --tool $tool --error-exitcode 9 "$b" --width 1280 --height 721 --frames 60 \
    --only overlap --input wrapped --defaults > "$out/sanitizer-$tool.log" 2>&1
  sum+=("sanitizer $tool staged: rc $? $(grep -E 'ERROR SUMMARY' "$out/sanitizer-$tool.log" | tail -1)")
  pack
done
# 4. the wrapped rows with the release build
cp build-gpu/rel/libgstcudaoverlap.so build-gpu/elements/
rm -f /tmp/co-registry.bin
for sz in 4k 1080; do
  if [ $sz = 1080 ]; then geo="--width 1920 --height 1080 --frames 1000"; else geo="--frames 300"; fi
  fits 40 wrapped-$sz || continue
  timeout 40 "$b" $geo --only raw,overlap --streams 4 --chunks 1 --input wrapped,app-pinned --defaults \
    --csv "$out/wrapped-$sz.csv" > "$out/wrapped-$sz.log" 2>&1
  sum+=("wrapped-$sz rc $? | $(grep -E 'defaults wrapped|element wrapped' "$out/wrapped-$sz.log" | tr '\n' ' ' | cut -c1-400)")
  pack
done
printf '%s\n' "${sum[@]}"
