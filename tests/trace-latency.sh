#!/bin/sh
# make check: tools/trace/trace-latency.py splits a real trace (CPU backend, or
# whichever backend is usable): 20 frames, every step printed, all frames
# but the first counted.
#   tests/trace-latency.sh [build]
here=$(cd "$(dirname "$0")/.." && pwd)
b=${1:-build}; case $b in /*) ;; *) b=$here/$b;; esac
export GST_PLUGIN_PATH="$b/plugin${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
gst-launch-1.0 -q videotestsrc num-buffers=20 pattern=snow \
  ! video/x-raw,format=RGBA,width=333,height=77 \
  ! cudavideofilter operation=invert streams=2 chunks=3 trace-file="$tmp/t.json" \
  ! fakesink || exit 1
python3 "$here/tools/trace/trace-latency.py" "$tmp/t.json" > "$tmp/out.txt" || exit 1
cat "$tmp/out.txt"
grep -q ": 19 frames (first 1 skipped)" "$tmp/out.txt" || { echo "wrong frame count"; exit 1; }
for step in chain pre-submit submit to-device device wake to-push push element; do
  grep -Eq "^\| $step \| [0-9.]+ \| [0-9.]+ \|$" "$tmp/out.txt" || { echo "no '$step' row"; exit 1; }
done
# per frame the element's span holds the device span, and no step is
# negative, so neither may their medians be
awk -F'|' '/^\| [a-z-]+ \|/ { v[$2] = $3 + 0; if ($3 + 0 < 0) bad = bad " " $2 }
  END { if (bad != "") { print "negative:" bad; exit 1 }
        if (v[" element "] < v[" device "]) { print "element p50 < device p50"; exit 1 } }' \
  "$tmp/out.txt" || exit 1
echo "trace-latency ok"
