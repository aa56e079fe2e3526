#!/usr/bin/env bash
# session 12 call 4: A/B of the asynchronous staging: v0 (staging in chain,
# the base), v0st (the same with submit-thread=true), new (copies on
# co-parcopy's threads, finished by the thread that queues the frame; the
# submit thread chosen for staged non-live input)
set -u
source .gpu/gst/env.sh
source tools/gpu-lib.sh call4 build-gpu 420
b=$here/build-gpu/tools/cudaoverlap-bench
declare -A dir=([v0]=$here/build-gpu/v0 [v0st]=$here/build-gpu/v0 [new]=$here/build-gpu/rel)
for rep in 1 2; do
 for sz in 1080 4k; do
  if [ $sz = 1080 ]; then geo="--width 1920 --height 1080 --frames 1000"; else geo="--frames 300"; fi
  for v in v0 v0st new; do
    name=r$rep-$sz-$v
    only=overlap; [ $rep = 1 ] && [ $v = v0 ] && only=raw,overlap
    props=""; [ $v = v0st ] && props="--props submit-thread=true"
    fits 40 $name || continue
    GST_PLUGIN_PATH=${dir[$v]} GST_REGISTRY_1_0=/tmp/reg-$v.bin timeout 40 "$b" $geo --only $only \
      --streams 4 --chunks 1 --input wrapped --defaults $props --csv "$out/$name.csv" > "$out/$name.log" 2>&1
    rc=$?
    m=$(grep -h '^memcpy-best,' "$out/$name.csv" | cut -d, -f6)
    r=$(grep -h '^raw-best,' "$out/$name.csv" | cut -d, -f6)
    e=$(grep -h '^element,overlap,wrapped' "$out/$name.csv" | cut -d, -f6,13)
    d=$(grep -h '^defaults,auto,wrapped' "$out/$name.csv" | cut -d, -f6,13)
    sum+=("$name rc $rc raw $r memcpy-best $m 4x1 $e defaults $d")
    pack
  done
 done
done
# the new build on recurring memory (nothing staged): no change expected
fits 60 new-4k-pinned && { GST_PLUGIN_PATH=${dir[new]} GST_REGISTRY_1_0=/tmp/reg-new.bin timeout 60 "$b" --frames 600 \
  --only raw,overlap --streams 4 --chunks 1 --input pinned,registered --defaults --csv "$out/new-4k-pinned.csv" > "$out/new-4k-pinned.log" 2>&1
  sum+=("new-4k-pinned rc $? $(grep -E 'defaults (pinned|registered):' "$out/new-4k-pinned.log" | tr '\n' ' ' | cut -c1-300)"); pack; }
# the passport's choice on staged input
fits 40 new-debug && { GST_PLUGIN_PATH=${dir[new]} GST_REGISTRY_1_0=/tmp/reg-new.bin GST_DEBUG=cudaoverlap:4 timeout 40 "$b" \
  --width 1920 --height 1080 --frames 300 --only overlap --input wrapped --defaults > "$out/new-debug.log" 2>&1
  sum+=("new-debug rc $?"); grep -m3 "automatic settings" "$out/new-debug.log" | cut -c1-400 > "$out/auto-lines.txt"; pack; }
printf '%s\n' "${sum[@]}"
cat "$out/auto-lines.txt" 2>/dev/null
