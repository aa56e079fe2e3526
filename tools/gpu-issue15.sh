#!/usr/bin/env bash
# Issue 15's rows (CUDA memory in and out: the element against the raw
# one-way and device-only ceilings and against cudaupload/cudadownload) in
# one bounded command on the lent GPU machine:
#   source .gpu/gst/env.sh && tools/gpu-issue15.sh [build]
# Every row checks every output frame (see cudaoverlap-bench, --memory).
# Logs and CSVs: $OUT/issue15-logs.tgz (or ./gpu-logs), re-packed after every
# step.  Each step is bounded and runs only if it fits in CO_I15_BUDGET s
# (default 300); CO_I15_STEPS (a space-separated list of step names) runs
# some of them; CO_I15_FRAMES scales the frame counts.
set -u
scale=${CO_I15_FRAMES:-1}
steps=${CO_I15_STEPS:-}
# shellcheck source=gpu-lib.sh
source "$(dirname "$0")/gpu-lib.sh" issue15 "${1:-build}" "${CO_I15_BUDGET:-300}"
n() { awk -v n="$1" -v s="$scale" 'BEGIN { v = int (n * s); print (v < 2 ? 2 : v) }'; }

# name limit_s bench-arguments...
step() {
  local name=$1 limit=$2; shift 2
  [ -z "$steps" ] || [[ " $steps " == *" $name "* ]] || return
  fits "$limit" "$name" || return
  timeout "$limit" "$b" --only memory "$@" --csv "$out/$name.csv" > "$out/$name.log" 2>&1
  sum+=("$name rc $?"); pack
}

# 4K RGBA, CUDA memory in and out: a few settings, each beside raw-device
step cuda-cuda-2x1 40 --memory cuda-cuda --frames "$(n 3000)" --streams 2 --chunks 1
step cuda-cuda-4x1 40 --memory cuda-cuda --frames "$(n 3000)" --streams 4 --chunks 1
step cuda-cuda-4x4 40 --memory cuda-cuda --frames "$(n 3000)" --streams 4 --chunks 4
step cuda-cuda-4x1-batch4 40 --memory cuda-cuda --frames "$(n 3000)" --streams 4 \
  --chunks 1 --props batch=4
# one-way copies against raw-h2d / raw-d2h and cudaupload / cudadownload
step upload-4k 45 --memory upload --frames "$(n 600)" --streams 4 --chunks 4
step download-4k 45 --memory download --frames "$(n 600)" --streams 4 --chunks 4
# the same download in whole frames (fewer, larger copies) and at 2 streams
step download-4k-4x1 45 --memory download --frames "$(n 600)" --streams 4 --chunks 1
step download-4k-2x1 45 --memory download --frames "$(n 600)" --streams 2 --chunks 1
# cudaupload ! box blur r 16 (CUDA in) ! system memory, its overlap efficiency
step blur-cuda-in-4k 60 --memory blur-cuda-in --input app-pinned --frames "$(n 600)" --streams 4 --chunks 4

printf '%s\n' "${sum[@]}"
echo "elapsed $(( $(date +%s) - T0 )) s"
for f in "$out"/*.log; do
  echo "== $(basename "$f")"
  grep -E '^\| (raw-device-best|raw-h2d-best|raw-d2h-best|memory|mem-peer) |^  memory |^verify|^check|^error|skipped|^RESULT' \
    "$f" | awk '!seen[$0]++' | cut -c1-220 | head -30
done
pack
exit 0
