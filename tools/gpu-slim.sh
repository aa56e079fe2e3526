#!/usr/bin/env bash
# Makes DEST (default build-gpu, git-ignored): what the GPU machine runs of a
# build, without object files, so that it and .gpu fit the device's 64 MiB:
#   tools/gpu-slim.sh [BUILD] [DEST] [RELEASE_BUILD] [OLD_PLUGIN_DIR]
# BUILD's plugin, test programs and tools; RELEASE_BUILD's plugin (a build
# without -Dfault-injection, for benchmarks) in DEST/rel; an older build's
# plugin in DEST/old.  Then run ../shared/tools/gpu-prepare.sh DEST and
# carry .gpu and DEST.
# The default build carries machine code for every GPU family (~6 MB per
# program that links the kernels): for the H200 (sm_90) make BUILD and
# RELEASE_BUILD with -Dcuda-architectures=90, e.g.
#   meson setup build-h200 -Dfault-injection=true -Dcuda-architectures=90
#   meson setup build-rel -Dcuda-architectures=90
set -eu
build=${1:-build}
dest=${2:-build-gpu}
rel=${3:-build-rel}
old=${4:-build-old/plugin}
rm -rf "$dest"
mkdir -p "$dest/plugin" "$dest/tests" "$dest/tools"
cp "$build/plugin/libgstcudaoverlap.so" "$dest/plugin/"
for f in "$build"/tests/test-*; do
  if [ -f "$f" ] && [ -x "$f" ]; then cp "$f" "$dest/tests/"; fi
done
# operation=custom's kernels: the examples' PTX and CPU modules, the tests'
# (test-custom finds them beside itself)
mkdir -p "$dest/examples/kernels" "$dest/tests/kernels"
cp "$build"/examples/kernels/*.ptx "$build"/examples/kernels/*.cubin \
  "$build"/examples/kernels/*.so "$dest/examples/kernels/" 2>/dev/null || true
cp "$build"/tests/kernels/*.ptx "$build"/tests/kernels/*.so \
  "$dest/tests/kernels/" 2>/dev/null || true
# the examples the GPU suite runs (kernel-launcher, statistics)
for t in launcher-app stats-summary; do
  if [ -x "$build/examples/$t" ]; then cp "$build/examples/$t" "$dest/examples/"; fi
done
for t in cudaoverlap-bench cudaoverlap-check cudaoverlap-soak cudaoverlap-callcost; do
  if [ -x "$build/tools/$t" ]; then cp "$build/tools/$t" "$dest/tools/"; fi
done
if [ -f "$rel/plugin/libgstcudaoverlap.so" ]; then
  mkdir -p "$dest/rel" && cp "$rel/plugin/libgstcudaoverlap.so" "$dest/rel/"
fi
if [ -f "$old/libgstcudaoverlap.so" ]; then
  mkdir -p "$dest/old" && cp "$old/libgstcudaoverlap.so" "$dest/old/"
fi
{ git rev-parse HEAD && git status --porcelain --untracked-files=no |
  sed 's/^/modified: /'; } > "$dest/commit.txt" 2>/dev/null || true
du -sh "$dest"
if [ "$(du -sm "$dest" | cut -f1)" -gt 56 ]; then
  echo "$dest is too big for the device's 64 MiB with .gpu: build with" \
    "-Dcuda-architectures=90 (see the top of $0)" >&2
  exit 1
fi
