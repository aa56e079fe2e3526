#!/usr/bin/env bash
# session 12 call 8 (a1147272, release build): 4K wrapped, 1000 frames, three times
# each with its own ceiling; 1080p defaults on recurring memory (no change expected)
set -u
source .gpu/gst/env.sh
cp build-gpu/rel/libgstcudaoverlap.so build-gpu/elements/
source tools/gpu-lib.sh call8 build-gpu 200
b=$here/build-gpu/tools/cudaoverlap-bench
run() { local name=$1 lim=$2; shift 2; fits "$lim" "$name" || return
  timeout "$lim" "$b" "$@" --csv "$out/$name.csv" > "$out/$name.log" 2>&1
  sum+=("$name rc $? | $(grep -E 'x the lower|defaults (pinned|registered):.*x raw' "$out/$name.log" | sed 's/ = .* x the lower/ x lower/' | tr '\n' ' ' | cut -c1-300)"); pack; }
for k in a b c; do run w4k-$k 60 --frames 1000 --only raw,overlap --streams 4 --chunks 1 --input wrapped --defaults; done
printf '%s\n' "${sum[@]}"
