#!/usr/bin/env bash
# session 12 call 7 (a1147272, release build): 4K wrapped defaults twice more,
# each with its own ceiling; 1080p defaults on recurring memory (no change expected)
set -u
source .gpu/gst/env.sh
cp build-gpu/rel/libgstcudaoverlap.so build-gpu/elements/
source tools/gpu-lib.sh call7 build-gpu 200
b=$here/build-gpu/tools/cudaoverlap-bench
run() { local name=$1 lim=$2; shift 2; fits "$lim" "$name" || return
  timeout "$lim" "$b" "$@" --csv "$out/$name.csv" > "$out/$name.log" 2>&1
  sum+=("$name rc $? | $(grep -E 'x the lower|defaults (pinned|registered):.*x raw' "$out/$name.log" | sed 's/ = .* x the lower/ x lower/' | tr '\n' ' ' | cut -c1-300)"); pack; }
run w4k-a 50 --frames 300 --only raw,overlap --streams 4 --chunks 1 --input wrapped --defaults
run w4k-b 50 --frames 300 --only raw,overlap --streams 4 --chunks 1 --input wrapped --defaults
run d1080 50 --width 1920 --height 1080 --frames 1500 --only raw,overlap --streams 4 --chunks 1 --input registered --defaults
printf '%s\n' "${sum[@]}"
