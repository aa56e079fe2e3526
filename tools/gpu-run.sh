#!/usr/bin/env bash
# Everything that runs on the lent GPU machine, in one command:
#   source .gpu/gst/env.sh && tools/gpu-run.sh [build] [what...]
# what: tests sanitizer bench (default: all).  Logs go to $OUT (or ./gpu-logs);
# a short table is printed last.
set -u
build=${1:-build}; shift || true
what=${*:-tests sanitizer bench}
here=$(cd "$(dirname "$0")/.." && pwd)
dest=${OUT:-$here/gpu-logs}; mkdir -p "$dest"
out=$(mktemp -d /tmp/co-gpu-logs.XXXXXX)
export GST_PLUGIN_PATH=$here/$build/elements
export GST_REGISTRY_1_0=/tmp/co-registry.bin
summary=()

{
  date -u; uname -a; nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,pci.bus_id,clocks.sm,clocks.mem --format=csv
  gst-inspect-1.0 --version | head -1
  gst-inspect-1.0 cudaoverlap | head -20
} > "$out/passport.txt" 2>&1
summary+=("passport: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1)")

if [[ " $what " == *" tests "* ]]; then
  "$here/tests/run-gpu-tests.sh" "$build" > "$out/gpu-tests.log" 2>&1
  rc=$?
  summary+=("gpu tests: $( [ $rc = 0 ] && echo PASS || echo "FAIL (rc $rc)")")
  summary+=("$(grep -E '^(PASS|FAIL|SKIP)' "$out/gpu-tests.log" | tr '\n' ';')")
fi

if [[ " $what " == *" sanitizer "* ]]; then
  cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  : > "$out/sanitizer.log"
  blur="NV12,width=1921,height=1081 ! cudavideofilter operation=box-blur radius=5 streams=3 chunks=5"
  for run in "memcheck|$blur" \
             "memcheck|RGBA,width=1921,height=1081 ! cudavideofilter operation=invert streams=3 chunks=5" \
             "memcheck|GRAY16_LE,width=333,height=77 ! cudavideofilter operation=gamma gamma=2.2 streams=2 chunks=3" \
             "racecheck|$blur" "synccheck|$blur"; do
    tool=${run%%|*}; p=${run#*|}
    {
      echo "=== $tool: $p" >> "$out/sanitizer.log"
      # shellcheck disable=SC2086
      $cs --tool $tool --error-exitcode 9 gst-launch-1.0 -q videotestsrc num-buffers=6 pattern=snow \
        ! video/x-raw,format=$p backend=cuda ! fakesink >> "$out/sanitizer.log" 2>&1
      r=$?
      summary+=("sanitizer $tool ${p%% *}: $( [ $r = 0 ] && echo clean || echo "rc $r")")
    }
  done
  if [ -x "$here/$build/tests/test-cudaaudiofilter" ]; then
    echo "=== memcheck audio" >> "$out/sanitizer.log"
    $cs --tool memcheck --error-exitcode 9 gst-launch-1.0 -q audiotestsrc num-buffers=8 samplesperbuffer=100000 \
      ! audio/x-raw,format=F32LE,channels=2,rate=2400000 ! cudaaudiofilter operation=fir taps="<0.25,0.5,0.25,0.1,0.3>" backend=cuda streams=3 chunks=5 \
      ! fakesink >> "$out/sanitizer.log" 2>&1
    r=$?; summary+=("sanitizer memcheck audio: $( [ $r = 0 ] && echo clean || echo "rc $r")")
  fi
fi

if [[ " $what " == *" bench "* ]]; then
  b=$here/$build/tools/cudaoverlap-bench
  if [ -x "$b" ]; then
    "$b" --width 3840 --height 2160 --format RGBA --frames 600 --csv "$out/bench-4k.csv" > "$out/bench-4k.log" 2>&1
    summary+=("bench 4k rc $?")
  fi
fi

cp -r "$here/$build/gpu-test-logs" "$out/" 2>/dev/null
printf '%s\n' "${summary[@]}" | tee "$out/summary.txt"
tar czf "$dest/gpu-logs.tgz" -C "$out" . 2>/dev/null
[ -f "$out/bench-4k.log" ] && tail -30 "$out/bench-4k.log"
exit 0
