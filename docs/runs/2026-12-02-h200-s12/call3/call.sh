#!/usr/bin/env bash
# session 12 call 3: staging A/B: plain memcpy (v0) against streaming stores (nt: 14 parts, nt8: 8 parts) x submit thread

set -u
source .gpu/gst/env.sh
source tools/gpu-lib.sh call3 build-gpu 540
b=$here/build-gpu/tools/cudaoverlap-bench
declare -A dir=([v0]=$here/build-gpu/v0 [nt]=$here/build-gpu/rel [nt8]=$here/build-gpu/vnt8)
lscpu > "$out/lscpu.txt" 2>&1; sum+=("$(grep -E "Model name|^CPU\(s\)|L3|NUMA node\(s\)" "$out/lscpu.txt" | tr -s " " | tr "\n" ";")")
for rep in 1 2; do
 for sz in 1080 4k; do
  if [ $sz = 1080 ]; then geo="--width 1920 --height 1080 --frames 1000"; else geo="--frames 300"; fi
  for v in v0 nt nt8; do
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
for in in wrapped registered; do
  fits 40 "trace $in" || break
  GST_PLUGIN_PATH=${dir[nt]} GST_REGISTRY_1_0=/tmp/reg-nt.bin timeout 40 "$b" --width 1920 --height 1080 --frames 300 --only overlap --streams 4 --chunks 1 \
    --input $in --props "trace-file=$out/t1080-$in.json" > "$out/t1080-$in.log" 2>&1
  sum+=("trace $in rc $?"); pack
done
printf '%s\n' "${sum[@]}"
