#!/usr/bin/env bash
# The first device call of a session after CPU-only work: everything written
# without a GPU, checked on it, in one bounded command (< 10 min):
#   source .gpu/gst/env.sh && tools/gpu-next.sh [build]
# 1. every suite with CO_TEST_BACKEND=cuda (tests/run-gpu-tests.sh): the
#    CUDA runs of passthrough, QoS, metas, automatic settings, CUDA memory;
# 2. the open gamma finding (docs/RELIABILITY.md): its torture seed three
#    times, with the gamma table uploads logged; then fresh seeds of the
#    same cases for a bounded time (step "seeds");
# 3. a build the GPU cannot run (BUILD/arch100: the plugin built with
#    -Dcuda-architectures=100, see below): backend=auto must warn and run on
#    the CPU, backend=cuda must fail naming compute capability 9.0 and sm_100;
# 4. compute-sanitizer memcheck, racecheck and synccheck on the CUDA-memory paths
#    (cudaupload ! cudavideofilter ! cudadownload and the mixed ones), when
#    the build has them;
# 5. operation=custom (issue 16) against the built-in invert in the bench,
#    Sobel 4K as operation=custom against the raw loop of the same kernel,
#    and the Sobel example under memcheck;
# 6. cudaoverlap-check beside CUPTI (~90 s at most): issue 16's row "statistics
#    and trace of a custom kernel, CUPTI agreement" (Sobel 4K as
#    operation=custom, serial and overlap 4 x 1, outputs against the CPU
#    backend running co_sobel_cpu) and issue 15's independent profile
#    (--memory cuda-in,cuda-out: which copies CUPTI saw, pageable or pinned,
#    and how much of them ran during kernels).
# Logs: $OUT/next-logs.tgz, re-packed after every step; a table last.
#
# Prepare here (the H200 is sm_90; all families do not fit the carry):
#   meson setup build-h200 -Dfault-injection=true -Dtests=enabled \
#     -Dcuda-architectures=90 && ninja -C build-h200
#   meson setup build-arch100 -Dtests=disabled -Dtools=disabled \
#     -Dcuda-architectures=100 && ninja -C build-arch100
#   tools/gpu-slim.sh build-h200 build-gpu build-rel
#   mkdir -p build-gpu/arch100 && cp build-arch100/plugin/*.so build-gpu/arch100/
#   ../shared/tools/gpu-prepare.sh build-gpu     (then carry .gpu and build-gpu)
set -u
# CO_NEXT_STEPS: some of suites gamma seeds arch sanitizer sanitizer-audio custom
# check check16 (default all;
# the suites alone may take most of one call: split over two calls)
steps=${CO_NEXT_STEPS:-}
want() { [ -z "$steps" ] || [[ " $steps " == *" $1 "* ]]; }
# shellcheck source=gpu-lib.sh
source "$(dirname "$0")/gpu-lib.sh" next "${1:-build}" "${CO_NEXT_BUDGET:-570}"

# 1. the suites
if want suites && fits 330 "suites"; then
  CO_GPU_TEST_TIMEOUT=300 "$here/tests/run-gpu-tests.sh" "$build" > "$out/suites.log" 2>&1
  sum+=("suites rc $?: $(tail -1 "$out/suites.log")")
  mapfile -t bad < <(grep -E '^(FAIL|SKIP)' "$out/suites.log")
  for l in "${bad[@]}"; do sum+=("  $l"); done
  cp -r "$here/$build/gpu-test-logs" "$out/" 2>/dev/null
  pack
fi

# 2. the gamma finding
torture=$here/$build/tests/test-torture
for i in 1 2 3; do
  want gamma || break
  fits 60 "gamma seed run $i" || break
  CO_TEST_BACKEND=cuda CK_FORK=no CO_TEST_SEED=0x9f2e1ab4 GST_CHECKS=test_props_vs_seeks \
    GST_DEBUG=cudaoverlap-video:5 GST_DEBUG_FILE="$out/gamma-$i.debug" \
    timeout 60 "$torture" > "$out/gamma-$i.log" 2>&1
  sum+=("gamma seed run $i rc $?")
done
pack

# 2b. the finding's kind of race, with fresh seeds: the CUDA torture's
#     property and caps cases (rebuilds and gamma changes racing flushing
#     seeks) at scale 2 (~25 s each), one seed per run, for up to
#     CO_NEXT_SEEDS_S seconds (default 150); every output compared; the
#     seeds and their frame totals in seeds.log
if want seeds && fits "${CO_NEXT_SEEDS_S:-150}" "fresh seeds"; then
  t_end=$(( $(date +%s) + ${CO_NEXT_SEEDS_S:-150} - 50 ))
  n_seed=0; n_bad=0
  while [ "$(date +%s)" -lt "$t_end" ]; do
    seed=$(printf '0x%08x' $(( (RANDOM << 16) ^ RANDOM ^ (n_seed << 24) )))
    CO_TEST_BACKEND=cuda CK_FORK=no CO_TEST_SEED=$seed CO_TORTURE_SCALE=2 \
      GST_CHECKS=test_props_vs_seeks,test_caps_renegotiation \
      timeout 50 "$torture" > "$out/seed-$seed.log" 2>&1
    rc=$?
    n_seed=$((n_seed + 1))
    if [ $rc = 0 ]; then
      echo "seed $seed ok: $(grep -c ' in, ' "$out/seed-$seed.log") runs" >> "$out/seeds.log"
      grep -h ' in, ' "$out/seed-$seed.log" >> "$out/seeds-runs.log"
      rm -f "$out/seed-$seed.log"
    else
      n_bad=$((n_bad + 1))
      echo "seed $seed FAILED rc $rc (seed-$seed.log)" >> "$out/seeds.log"
    fi
  done
  sum+=("fresh seeds: $n_seed runs, $n_bad failed")
  pack
fi

# 3. a build this GPU cannot run
if want arch && [ -d "$here/$build/arch100" ] && fits 60 "unrunnable build"; then
  for be in auto cuda; do
    GST_PLUGIN_PATH=$here/$build/arch100 GST_REGISTRY_1_0=/tmp/co-reg-arch100.bin \
      timeout 30 gst-launch-1.0 videotestsrc num-buffers=5 ! \
      video/x-raw,format=RGBA,width=64,height=48 ! cudavideofilter backend=$be ! \
      fakesink > "$out/arch100-$be.log" 2>&1
    rc=$?
    said=$(grep -c "compute capability 9.0" "$out/arch100-$be.log")
    sum+=("arch100 backend=$be rc $rc, names cc 9.0: $said (expect auto: rc 0 + warning; cuda: rc 1 + error)")
  done
  pack
fi

# 4. compute-sanitizer on the CUDA-memory paths
if want sanitizer && gst-inspect-1.0 cudaupload > /dev/null 2>&1 &&
  fits 150 "sanitizer"; then
  cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  for tool in memcheck racecheck synccheck; do
    for p in "cudaupload ! video/x-raw(memory:CUDAMemory) ! cudavideofilter operation=box-blur radius=3 chunks=3 streams=2 backend=cuda ! video/x-raw(memory:CUDAMemory) ! cudadownload" \
             "cudaupload ! video/x-raw(memory:CUDAMemory) ! cudavideofilter operation=invert backend=cuda ! video/x-raw" \
             "cudavideofilter operation=gamma gamma=2.2 backend=cuda ! video/x-raw(memory:CUDAMemory) ! cudadownload"; do
      echo "=== $tool: $p" >> "$out/sanitizer.log"
      # one word per argument: gst-launch-1.0 quotes each argument
      # (a description in one argument is a syntax error); $p splits
      # shellcheck disable=SC2086
      timeout 40 "$cs" --tool "$tool" --error-exitcode 9 gst-launch-1.0 -q \
        videotestsrc num-buffers=6 pattern=snow ! video/x-raw,format=NV12,width=161,height=93 ! $p ! fakesink \
        >> "$out/sanitizer.log" 2>&1
      sum+=("sanitizer $tool: ${p:0:40}... rc $?")
    done
  done
  pack
fi

# 4b. the same tools on cudaaudiofilter's CUDA-memory paths (step
#     "sanitizer-audio"): system -> CUDA memory -> CUDA memory -> system
#     through three filters (FIR, gain, FIR), odd buffer sizes, chunks
if want sanitizer-audio && fits 90 "sanitizer-audio"; then
  cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  for tool in memcheck racecheck synccheck; do
    echo "=== $tool: audio FIR ! CUDA ! gain ! CUDA ! FIR ! system" >> "$out/sanitizer-audio.log"
    timeout 40 "$cs" --tool "$tool" --error-exitcode 9 gst-launch-1.0 -q \
      audiotestsrc num-buffers=8 samplesperbuffer=4801 wave=white-noise \
      ! audio/x-raw,format=F32LE,channels=2,rate=48000 \
      ! cudaaudiofilter operation=fir "taps=<0.1,0.2,0.4,0.2,0.1>" streams=2 chunks=3 backend=cuda \
      ! "audio/x-raw(memory:CUDAMemory)" \
      ! cudaaudiofilter operation=gain gain-db=-6 backend=cuda \
      ! "audio/x-raw(memory:CUDAMemory)" \
      ! cudaaudiofilter operation=fir "taps=<0.5,0.25,0.125>" streams=3 chunks=2 backend=cuda \
      ! audio/x-raw ! fakesink >> "$out/sanitizer-audio.log" 2>&1
    sum+=("sanitizer-audio $tool rc $?")
  done
  pack
fi

# 5. issue 16: operation=custom (the invert example's PTX) against the
#    built-in invert, each beside the raw loop of the same call
#    (docs/PERFORMANCE.md, Custom kernels); and a custom kernel under
#    compute-sanitizer memcheck
k=$here/$build/examples/kernels
if want custom && [ -x "$b" ] && [ -f "$k/invert.ptx" ] &&
  fits 220 "custom bench"; then
  # invert: the example as operation=custom (raw rows: its module, checked
  # against its CPU implementation) against the built-in invert
  for op in invert custom; do
    timeout 50 "$b" --only raw,overlap --frames 300 --op "$op" \
      --props "kernel-module=$k/invert.ptx kernel-name=co_invert kernel-cpu-library=$k/libco-invert-cpu.so kernel-cpu-symbol=co_invert_cpu" \
      > "$out/custom-bench-$op.log" 2>&1
    sum+=("bench --op $op rc $?: $(grep -m1 'best overlap' "$out/custom-bench-$op.log"); $(grep -m1 '^RESULT' "$out/custom-bench-$op.log")")
  done
  # the issue's Sobel row: Sobel 4K RGBA as operation=custom against the raw
  # loop of the same kernel (module, launch struct, geometry, halo rows),
  # every output checked against co_sobel_cpu over the whole frame
  timeout 80 "$b" --only raw,overlap --frames 300 --op custom \
    --props "kernel-module=$k/sobel.ptx kernel-name=co_sobel kernel-halo=1 kernel-cpu-library=$k/libco-sobel-cpu.so kernel-cpu-symbol=co_sobel_cpu" \
    > "$out/custom-bench-sobel.log" 2>&1
  sum+=("bench sobel rc $?: $(grep -m1 'raw-best' "$out/custom-bench-sobel.log" | cut -d'|' -f2-8); $(grep -m1 'best overlap' "$out/custom-bench-sobel.log"); $(grep -m1 '^RESULT' "$out/custom-bench-sobel.log")")
  cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  timeout 20 "$cs" --tool memcheck --error-exitcode 9 gst-launch-1.0 -q \
    videotestsrc num-buffers=4 pattern=snow ! video/x-raw,format=RGBA,width=161,height=93 ! cudavideofilter backend=cuda operation=custom "kernel-module=$k/sobel.ptx" kernel-name=co_sobel kernel-halo=1 chunks=5 streams=3 ! fakesink \
    > "$out/custom-sanitizer.log" 2>&1
  sum+=("sanitizer memcheck custom sobel rc $?")
  pack
fi

# 6. cudaoverlap-check beside CUPTI: a custom kernel (issue 16) and the
#    CUDA-memory paths' copies (issue 15)
k=$here/$build/examples/kernels
if want check && [ -x "$c" ] && fits 90 "check"; then
  if [ -f "$k/sobel.ptx" ]; then
    timeout 40 "$c" --video --frames 300 --streams 4 --chunks 1 \
      --props "operation=custom kernel-module=$k/sobel.ptx kernel-name=co_sobel kernel-halo=1 kernel-cpu-library=$k/libco-sobel-cpu.so kernel-cpu-symbol=co_sobel_cpu" \
      > "$out/check-custom-sobel.log" 2>&1
    sum+=("check custom sobel rc $? (0 all passed, 3 a performance verdict failed)")
    mapfile -t rows < <(grep -E '^\| video (serial|overlap)(:| overlap-eff)|^\| video outputs' "$out/check-custom-sobel.log" | cut -c1-160)
    for l in "${rows[@]}"; do sum+=("  $l"); done
  else
    sum+=("check custom sobel: skipped, no $k/sobel.ptx")
  fi
  timeout 45 "$c" --memory cuda-in,cuda-out --radius 16 --frames 300 --streams 4 --chunks 4 \
    > "$out/check-memory.log" 2>&1
  sum+=("check memory rc $?")
  mapfile -t rows < <(grep -E '^\| (memory|CUDA memory)' "$out/check-memory.log" | cut -c1-200)
  for l in "${rows[@]}"; do sum+=("  $l"); done
  pack
fi

# 7. issue 16's CUPTI row with its control (step "check16"): the custom
#    Sobel (3 x 3, halo 1) and the built-in box blur of radius 1 (3 x 3, a
#    kernel of about the same time) and 32 (the row that met 10 %), each
#    4 x 1 beside CUPTI in the same call: an event interval's excess over
#    CUPTI's kernel record is per operation, so it is judged against a
#    built-in kernel of the same length
if want check16 && [ -x "$c" ] && [ -f "$k/sobel.ptx" ] && fits 120 "check16"; then
  timeout 40 "$c" --video --frames 300 --streams 4 --chunks 1 \
    --props "operation=custom kernel-module=$k/sobel.ptx kernel-name=co_sobel kernel-halo=1 kernel-cpu-library=$k/libco-sobel-cpu.so kernel-cpu-symbol=co_sobel_cpu" \
    > "$out/check16-custom-sobel.log" 2>&1
  sum+=("check16 custom sobel rc $?")
  for r in 1 32; do
    timeout 40 "$c" --video --frames 300 --streams 4 --chunks 1 --radius "$r" \
      > "$out/check16-box-blur-r$r.log" 2>&1
    sum+=("check16 box-blur r$r rc $?")
  done
  for f in "$out"/check16-*.log; do
    sum+=("  $(basename "$f"): $(grep -E '^\| kernel-ns' "$f" | tr -s ' ' | tr '\n' ' ' | cut -c1-150)")
  done
  pack
fi

printf '%s\n' "${sum[@]}" | tee "$out/summary.txt"
pack
