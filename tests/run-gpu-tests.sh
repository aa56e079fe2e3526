#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Runs the GPU test suite as plain executables, without meson (the GPU
# machine has none): every test program of the build that honours
# CO_TEST_BACKEND, with CO_TEST_BACKEND=cuda.
#
#   usage: tests/run-gpu-tests.sh [BUILD_DIR]      (default: build)
#
# Where GStreamer is not installed system-wide, set up the environment of
# a GStreamer runtime first (tools/gpu/lib.sh, GST_RUNTIME).  Prints one
# line per program (PASS, FAIL or SKIP, with the time and, for SKIP, the
# reason; each program is stopped after CO_GPU_TEST_TIMEOUT s, default
# 480), keeps each program's full output in BUILD_DIR/gpu-test-logs/, and
# exits non-zero if any program failed or was skipped: on the GPU machine a
# skip means the GPU (or a test hook of a -Dfault-injection build) was not
# tested.  The programs are one per topic (test-video-ops,
# test-torture-held, ...), each with the test names of gst-check.
set -u

build=${1:-build}
if [[ ! -d $build ]]; then
  echo "run-gpu-tests: no build folder '$build'" >&2
  exit 2
fi
build=$(cd "$build" && pwd)

plugin_dir=$build/plugin
if ! compgen -G "$plugin_dir/libgstcudaoverlap*.so" >/dev/null; then
  echo "run-gpu-tests: no plugin in $plugin_dir (build first)" >&2
  exit 2
fi

export GST_PLUGIN_PATH=$plugin_dir${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}
export GST_REGISTRY_1_0=$build/gpu-test-registry.bin
export CO_TEST_BACKEND=cuda
export CK_FORK=no          # CUDA does not survive fork (the programs set it too)
export CK_DEFAULT_TIMEOUT=${CK_DEFAULT_TIMEOUT:-600}
# Unforked, libcheck's own timeouts do not work: bound each program here.
limit=${CO_GPU_TEST_TIMEOUT:-480}

logs=$build/gpu-test-logs
mkdir -p "$logs"

# Test programs that honour CO_TEST_BACKEND (they name it in their binary),
# among the executables this build defines (meson-info/intro-targets.json,
# by name: the build folder may have moved; a program left in the folder by
# an older build is not run).
built=()
if [[ -f $build/meson-info/intro-targets.json ]] && command -v python3 >/dev/null; then
  mapfile -t built < <(python3 -c '
import json, os, sys
for t in json.load(open(sys.argv[1])):
    if t["type"] == "executable":
        for f in t["filename"]:
            print(os.path.basename(f))' "$build/meson-info/intro-targets.json")
fi
programs=()
for exe in "$build"/tests/test-*; do
  [[ -f $exe && -x $exe ]] || continue
  if (( ${#built[@]} > 0 )) && ! printf '%s\n' "${built[@]}" | grep -qxF "$(basename "$exe")"; then
    continue
  fi
  grep -q CO_TEST_BACKEND "$exe" 2>/dev/null || continue
  programs+=("$exe")
done
# the kernel-launcher example (examples/launcher-app.c: its <<<>>> kernel)
[[ -x $build/examples/launcher-app ]] && programs+=("$build/examples/launcher-app")
if (( ${#programs[@]} == 0 )); then
  echo "run-gpu-tests: no test program honouring CO_TEST_BACKEND in $build/tests" >&2
  exit 2
fi

n_pass=0 n_fail=0 n_skip=0
summary=()
# test-custom's faulting kernel poisons its process's CUDA context: once
# more, alone (CO_TEST_CUSTOM_FAULT=1), as test-custom-fault
runs=()
for exe in "${programs[@]}"; do
  runs+=("$exe")
  [[ $(basename "$exe") == test-custom ]] && runs+=("$exe:fault")
done
for run in "${runs[@]}"; do
  exe=${run%:fault}
  name=$(basename "$exe")
  fault=0
  [[ $run == *:fault ]] && { fault=1; name=$name-fault; }
  log=$logs/$name.log
  start=$(date +%s.%N)
  if (( fault )); then
    CO_TEST_CUSTOM_FAULT=1 timeout -k 10 "$limit" "$exe" >"$log" 2>&1
  else
    timeout -k 10 "$limit" "$exe" >"$log" 2>&1
  fi
  rc=$?
  secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  case $rc in
    0)  n_pass=$((n_pass + 1))
        summary+=("PASS  $name  (${secs} s)") ;;
    77) n_skip=$((n_skip + 1))
        why=$(grep -m1 '^SKIP' "$log" | cut -c1-200)
        summary+=("SKIP  $name  (${secs} s)  ${why:-exit 77}") ;;
    124|137)
        n_fail=$((n_fail + 1))
        summary+=("FAIL  $name  (${secs} s)  timed out after ${limit} s") ;;
    *)  n_fail=$((n_fail + 1))
        why=$(grep -m1 -E ':[FE]:|^ERROR|Checks:' "$log" | cut -c1-200)
        summary+=("FAIL  $name  (${secs} s, exit $rc)  ${why}") ;;
  esac
done

echo "GPU tests (CO_TEST_BACKEND=cuda, GST_PLUGIN_PATH=$plugin_dir), logs in $logs:"
printf '%s\n' "${summary[@]}"
echo "$n_pass passed, $n_fail failed, $n_skip skipped"
if (( n_fail > 0 || n_skip > 0 )); then
  exit 1
fi
exit 0
