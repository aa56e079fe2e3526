#!/usr/bin/env bash
# session 12 call 1: confirm 4K wrapped; diagnose 1080p staged
set -u
source .gpu/gst/env.sh
cp build-gpu/rel/libgstcudaoverlap.so build-gpu/elements/
source tools/gpu-lib.sh call1 build-gpu 560
b=$here/build-gpu/tools/cudaoverlap-bench
run() { local name=$1 lim=$2; shift 2; fits "$lim" "$name" || return
  timeout "$lim" "$b" "$@" --csv "$out/$name.csv" > "$out/$name.log" 2>&1
  sum+=("$name rc $? | $(grep -E 'x the lower' "$out/$name.log" | tr '\n' ' ' | cut -c1-400)"); pack; }
# 1. the issue-17 row, as in gpu-issue17.sh's input-4k
run input-4k 120 --frames 300 --only raw,overlap --streams 4 --chunks 1 \
  --input pinned,registered,wrapped,fresh,app-pinned --defaults
# 2. 1080p wrapped: the plain rows, then with the submit thread
run w1080 90 --width 1920 --height 1080 --frames 1000 --only raw,overlap --streams 4 --chunks 1 \
  --input wrapped --defaults
run w1080-st 90 --width 1920 --height 1080 --frames 1000 --only raw,overlap --streams 4 --chunks 1 \
  --input wrapped --defaults --props "submit-thread=true"
# 3. traces: wrapped and registered, 4 x 1, 300 frames
for in in wrapped registered; do
  fits 40 "trace $in" || break
  timeout 40 "$b" --width 1920 --height 1080 --frames 300 --only overlap --streams 4 --chunks 1 \
    --input $in --props "trace-file=$out/t1080-$in.json" > "$out/t1080-$in.log" 2>&1
  sum+=("trace $in rc $? $(grep -E 'element.*fps|frames/s' "$out/t1080-$in.log" | tail -2 | tr '\n' ' ' | cut -c1-300)")
  pack
done
printf '%s\n' "${sum[@]}"
