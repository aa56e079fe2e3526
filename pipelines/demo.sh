#!/bin/sh
# The main pipeline: 4K RGBA frames inverted by cudavideofilter, on the GPU
# when one is usable, else on the CPU backend (the demo says which, and why).
#   pipelines/demo.sh [BUILD]
# BUILD: the meson build folder, absolute or relative to the current folder
#   (default: build/ at the top of the source tree).
# Environment: DEMO_FRAMES (default 300 where an NVIDIA device node exists,
#   else 30).
# The source renders one frame (videotestsrc pattern=ball) and imagefreeze
# repeats it, at no cost, so that the figures are the element's, not the
# test pattern's.  Prints the element's passport and whole-run statistics
# one field a line, any warning, then a summary: the backend, the element's
# own frame rate and latency, and the pipeline's wall time.
. "$(dirname "$0")/common.sh"
co_build "$@"
co_need_run
n=${DEMO_FRAMES:-30}
if [ -z "$DEMO_FRAMES" ] && { [ -e /dev/nvidia0 ] || [ -e /dev/nvidiactl ]; }; then
  n=300
fi
caps=video/x-raw,format=RGBA,width=3840,height=2160,framerate=60/1
echo "demo: videotestsrc num-buffers=1 pattern=ball ! imagefreeze num-buffers=$n"
echo "        ! $caps"
echo "        ! cudavideofilter operation=invert stats-interval=0 ! fakesink"
out=$("$CO_RUN" --whole-run videotestsrc num-buffers=1 pattern=ball \
  ! imagefreeze num-buffers="$n" ! "$caps" \
  ! cudavideofilter operation=invert stats-interval=0 ! fakesink)
status=$?
printf '%s\n' "$out"
[ $status = 0 ] || { echo "demo: the pipeline failed" >&2; exit 1; }

# The summary, from the run's output: "key: value" lines under "passport
# of" and "statistics of ..., whole run", "warning from" and "wall time".
printf '%s\n' "$out" | awk '
  function ms(x) { split(x, a, " "); return sprintf("%.1f ms", a[1] / 1e6) }
  /^passport of /   { part = "p"; next }
  /^statistics of / { part = ($0 ~ /whole run:$/) ? "s" : ""; next }
  /^warning from /  { warn = warn "\n    " $0; part = ""; next }
  /^wall time: /    { wall = substr($0, 12); next }
  /^[^ ]/           { part = ""; next }
  part != "" {
    line = substr($0, 3); i = index(line, ": ")
    v[part, substr(line, 1, i - 1)] = substr(line, i + 2)
  }
  END {
    if (!(("p", "backend") in v) || !(("s", "fps") in v)) {
      print "demo: no passport or no whole-run statistics came" > "/dev/stderr"
      exit 1
    }
    print ""
    print "demo: summary"
    b = v["p", "backend"]
    if (b == "cuda")
      printf "  backend:              cuda, on %s (compute capability %s)\n",
        v["p", "device-name"], v["p", "compute-capability"]
    else {
      printf "  backend:              cpu (the same results, on worker threads)\n"
      if ((("p", "backend-reason") in v) && v["p", "backend-reason"] != "\"\"")
        printf "  why not the GPU:      %s\n", v["p", "backend-reason"]
      else if (warn == "")
        printf "  why not the GPU:      the element gave no reason\n"
    }
    if (warn != "")
      printf "  warnings:%s\n", warn
    print  "  the element, as it measured itself (whole-run statistics):"
    printf "    frames:             %s\n", v["s", "frames"]
    printf "    frames/s:           %.1f (fps: frames / window-ns, the span of its work)\n",
      v["s", "fps"]
    printf "    latency p50 / p99:  %s / %s (latency-p50, latency-p99: in to out)\n",
      ms(v["s", "latency-p50"]), ms(v["s", "latency-p99"])
    if (b == "cuda")
      printf "    copies hidden:      %s (overlap-efficiency)\n",
        v["s", "overlap-efficiency"]
    print  "  the whole pipeline (source, element, sink), wall clock:"
    if (match(wall, /^[0-9.]+ s/))
      printf "    start-up:           %s (to PAUSED: the set-up and the first frame)\n",
        substr(wall, 1, RLENGTH)
    if (match(wall, /[0-9.]+ s PLAYING/)) {
      t = substr(wall, RSTART, RLENGTH - 10) + 0
      r = (t > 0) ? sprintf(", %.1f frames/s", v["s", "frames"] / t) : ""
      printf "    PLAYING to EOS:     %.3f s%s\n", t, r
    }
  }'
