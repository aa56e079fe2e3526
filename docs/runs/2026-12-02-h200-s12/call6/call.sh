#!/usr/bin/env bash
# session 12 call 6 (a1147272): the GPU suites with the audio fix, then
# issue 17's input-4k step and 1080p wrapped with the release build
set -u
source .gpu/gst/env.sh
source tools/gpu-lib.sh call6 build-gpu 470
if fits 300 suites; then
  CO_GPU_TEST_TIMEOUT=280 "$here/tests/run-gpu-tests.sh" build-gpu > "$out/suites.log" 2>&1
  sum+=("suites rc $?: $(tail -1 "$out/suites.log")")
  mapfile -t bad < <(grep -E '^(FAIL|SKIP)' "$out/suites.log")
  for l in "${bad[@]}"; do sum+=("  $l"); done
  cp -r "$here/build-gpu/gpu-test-logs" "$out/" 2>/dev/null
  grep -h "PASS\|FAIL" "$out/suites.log" | head -12 > "$out/suites-lines.txt"
  pack
fi
b=$here/build-gpu/tools/cudaoverlap-bench
cp build-gpu/rel/libgstcudaoverlap.so build-gpu/elements/
rm -f /tmp/co-registry.bin
run() { local name=$1 lim=$2; shift 2; fits "$lim" "$name" || return
  timeout "$lim" "$b" "$@" --csv "$out/$name.csv" > "$out/$name.log" 2>&1
  sum+=("$name rc $? | $(grep -E 'x the lower' "$out/$name.log" | sed 's/ = .* x the lower/ x lower/' | tr '\n' ' ' | cut -c1-400)"); pack; }
run input-4k 90 --frames 300 --only raw,overlap --streams 4 --chunks 1 \
  --input pinned,registered,wrapped,fresh,app-pinned --defaults
run w1080 60 --width 1920 --height 1080 --frames 1000 --only raw,overlap --streams 4 --chunks 1 \
  --input wrapped,app-pinned --defaults
printf '%s\n' "${sum[@]}"
cat "$out/suites-lines.txt" 2>/dev/null
