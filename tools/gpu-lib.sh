# Shared set-up of the bounded GPU-machine scripts (gpu-ab.sh, gpu-issue5.sh);
# sourced, not run:  source "$(dirname "$0")/gpu-lib.sh" NAME BUILD BUDGET
# Sets here, build, out (a fresh log folder), b and c (the bench and check
# tools), sum (lines of the summary), T0; points GStreamer at BUILD's plugin;
# writes passport.txt.  pack: re-packs the logs into $OUT/NAME-logs.tgz (or
# ./gpu-logs), so a run stopped by the device's limit still brings back
# what it did.  fits SECONDS WHAT: whether a step of at most SECONDS still
# fits in BUDGET s since T0 (if not, the summary says it was skipped).
# trace_live TAG STREAMS CHUNKS WAIT [bench options]: a short traced live run
# (tracing costs push-thread time, so measured runs are not traced); its live
# row, the last pipeline, split by tools/trace-latency.py: $out/trace-TAG.json,
# $out/latency-TAG.log.
gpu_name=$1
build=$2
gpu_budget=$3
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dest=${OUT:-$here/gpu-logs}; mkdir -p "$dest"
out=$(mktemp -d "/tmp/co-$gpu_name.XXXXXX")
export GST_PLUGIN_PATH=$here/$build/plugin
export GST_REGISTRY_1_0=/tmp/co-registry.bin
b=$here/$build/tools/cudaoverlap-bench
c=$here/$build/tools/cudaoverlap-check
T0=$(date +%s)
sum=()
pack() { tar czf "$dest/$gpu_name-logs.tgz" -C "$out" . 2>/dev/null; }
fits() { (( $(date +%s) - T0 + $1 <= gpu_budget )) || { sum+=("skipped (budget): $2"); false; }; }

# the commit the build was made from (`make build` writes it; the GPU
# machine's copy of the tree may carry a stale .git)
{ date -u; echo "build of: $(cat "$here/$build/commit.txt" 2>/dev/null || echo unknown)"; nvidia-smi -L
  nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv; } > "$out/passport.txt" 2>&1

trace_live() {
  local tag=$1 s=$2 c=$3 w=$4; shift 4
  timeout 20 "$b" "$@" --frames 20 --only overlap,pinned --streams "$s" --chunks "$c" \
    --live 60 --live-frames 120 --props "wait-mode=$w trace-file=$out/trace-$tag.json" \
    > /dev/null 2>&1
  python3 "$here/tools/trace-latency.py" "$out/trace-$tag.json" > "$out/latency-$tag.log" 2>&1
}

# sanitize_pipeline TOOL "CAPS ! ELEMENT PROPS": compute-sanitizer TOOL on six
# snow frames of video/x-raw,format=CAPS through the element (backend=cuda),
# logged to $out/sanitizer.log, its return code in the summary.
sanitize_pipeline() {
  local tool=$1 p=$2 cs
  cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  echo "=== $tool: $p" >> "$out/sanitizer.log"
  # shellcheck disable=SC2086
  timeout 30 "$cs" --tool "$tool" --error-exitcode 9 gst-launch-1.0 -q videotestsrc \
    num-buffers=6 pattern=snow ! video/x-raw,format=$p backend=cuda ! fakesink \
    >> "$out/sanitizer.log" 2>&1
  sum+=("sanitizer $tool ${p%% *} rc $?")
}
