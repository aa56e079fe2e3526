#!/usr/bin/env bash
# session 12 call 2: staging A/B: part split (v0 = 14 parts >= 512 KiB,
# v1 = >= 1 MiB, v3 = at most 8 parts) x submit thread, 1080p and 4K wrapped
set -u
source .gpu/gst/env.sh
source tools/gpu-lib.sh call2 build-gpu 540
b=$here/build-gpu/tools/cudaoverlap-bench
declare -A dir=([v0]=$here/build-gpu/rel [v1]=$here/build-gpu/v1 [v3]=$here/build-gpu/v3)
for rep in 1 2; do
 for sz in 1080 4k; do
  if [ $sz = 1080 ]; then geo="--width 1920 --height 1080 --frames 1000"; else geo="--frames 300"; fi
  for v in v0 v1 v3; do
   for st in 0 1; do
    name=r$rep-$sz-$v-st$st
    only=overlap; [ $rep = 1 ] && [ $v = v0 ] && [ $st = 0 ] && only=raw,overlap
    props=""; [ $st = 1 ] && props="--props submit-thread=true"
    fits 40 $name || continue
    GST_PLUGIN_PATH=${dir[$v]} GST_REGISTRY_1_0=/tmp/reg-$v.bin timeout 40 "$b" $geo --only $only \
      --streams 4 --chunks 1 --input wrapped --defaults $props --csv "$out/$name.csv" > "$out/$name.log" 2>&1
    rc=$?
    m=$(grep -h '^memcpy-best,' "$out/$name.csv" | cut -d, -f6)
    e=$(grep -h '^element,overlap,wrapped' "$out/$name.csv" | cut -d, -f6)
    d=$(grep -h '^defaults,auto,wrapped' "$out/$name.csv" | cut -d, -f6)
    sum+=("$name rc $rc memcpy-best $m 4x1 $e defaults $d")
    pack
   done
  done
 done
done
printf '%s\n' "${sum[@]}"
