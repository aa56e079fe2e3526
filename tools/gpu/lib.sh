# shellcheck shell=bash disable=SC2034
# What the GPU scripts share; sourced, not run:
#   source "$(dirname "$0")/lib.sh" NAME BUILD [GST_RUNTIME]
# BUILD: a build folder (made here, or carried by tools/gpu/pack-build.sh);
# nothing is built or installed.  GST_RUNTIME (optional): a GStreamer
# runtime to use instead of the system's, either a script to source (e.g. a
# runtime's env.sh) or a folder with bin/ and lib/ (its env.sh is sourced
# when it has one).
# Sets: repo (the source tree), build (absolute), out (the log folder:
# CO_GPU_LOGS, default BUILD/gpu-logs/NAME), bench, check (the tools), sum
# (the summary lines), T0; points GStreamer at BUILD's plugin; writes
# passport.txt.  Functions: fits SECONDS WHAT (whether a step of at most
# SECONDS still fits in CO_GPU_BUDGET s, default 540, since T0; if not the
# summary says it was skipped); sanitize_pipeline TOOL "CAPS ! ELEMENT";
# summary (prints the summary lines and the elapsed time).
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
gpu_name=$1
if [ ! -d "${2:-}" ]; then
  echo "$gpu_name: no build folder '${2:-}'" >&2
  exit 2
fi
build=$(cd "$2" && pwd)
if [ -n "${3:-}" ]; then
  if [ -f "$3" ]; then
    # shellcheck disable=SC1090
    source "$3"
  elif [ -f "$3/env.sh" ]; then
    # shellcheck disable=SC1091
    source "$3/env.sh"
  elif [ -d "$3" ]; then
    rt=$(cd "$3" && pwd)
    export PATH=$rt/bin:$PATH
    export LD_LIBRARY_PATH=$rt/lib:$rt/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    export GST_PLUGIN_SYSTEM_PATH_1_0=$rt/lib/gstreamer-1.0:$rt/lib/x86_64-linux-gnu/gstreamer-1.0
    for s in "$rt"/libexec/gstreamer-1.0/gst-plugin-scanner \
             "$rt"/lib/x86_64-linux-gnu/gstreamer1.0/gstreamer-1.0/gst-plugin-scanner; do
      [ -x "$s" ] && export GST_PLUGIN_SCANNER=$s
    done
  else
    echo "$gpu_name: no GStreamer runtime '$3'" >&2
    exit 2
  fi
fi
gpu_budget=${CO_GPU_BUDGET:-540}
out=${CO_GPU_LOGS:-$build/gpu-logs}/$gpu_name
rm -rf "$out" && mkdir -p "$out"
export GST_PLUGIN_PATH=$build/plugin
export GST_REGISTRY_1_0=$out/registry.bin
bench=$build/tools/bench/cudaoverlap-bench
check=$build/tools/check/cudaoverlap-check
T0=$(date +%s)
sum=()
fits() { (( $(date +%s) - T0 + $1 <= gpu_budget )) || { sum+=("skipped (budget): $2"); false; }; }
summary() { printf '%s\n' "${sum[@]}"; echo "elapsed $(( $(date +%s) - T0 )) s"; }

# the commit the build was made from (make build and pack-build.sh write it)
{ date -u; echo "build of: $(cat "$build/commit.txt" 2>/dev/null || echo unknown)"
  nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv
  gst-launch-1.0 --version | head -1; } > "$out/passport.txt" 2>&1

# sanitize_pipeline TOOL "CAPS ! ELEMENT PROPS": compute-sanitizer TOOL on six
# snow frames of video/x-raw,format=CAPS through the element (backend=cuda),
# logged to $out/sanitizer.log, its exit status in the summary.
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
