#!/usr/bin/env bash
# Makes DEST: what a GPU machine runs of a build, without object files, to
# carry there with the source tree (tools/gpu/run-all.sh DEST runs it; no
# meson, no rebuild, nothing installed):
#   tools/gpu/pack-build.sh BUILD DEST [MAX_MIB]
# BUILD's plugin, test programs, example programs and kernels, the tools,
# and the commit it was built from.  DEST is emptied first.  MAX_MIB: fail
# when DEST is larger (a carry with a size limit).  A build for one GPU
# family stays small: meson setup BUILD -Dcuda-architectures=90 (machine
# code for every family takes a few MB per program that links the kernels).
set -eu
if [ $# -lt 2 ]; then
  echo "usage: $0 BUILD DEST [MAX_MIB]" >&2
  exit 2
fi
build=$1
dest=$2
rm -rf "$dest"
mkdir -p "$dest/plugin" "$dest/tests/kernels" "$dest/examples/kernels" \
  "$dest/tools/bench" "$dest/tools/check"
cp "$build"/plugin/libgstcudaoverlap*.so "$dest/plugin/"
for f in "$build"/tests/test-*; do
  if [ -f "$f" ] && [ -x "$f" ]; then cp "$f" "$dest/tests/"; fi
done
# operation=custom's kernels: the examples' PTX, cubins and CPU modules, the
# tests' (test-custom finds them beside itself)
cp "$build"/examples/kernels/*.ptx "$build"/examples/kernels/*.cubin \
  "$build"/examples/kernels/*.so "$dest/examples/kernels/" 2>/dev/null || true
cp "$build"/tests/kernels/*.ptx "$build"/tests/kernels/*.so \
  "$dest/tests/kernels/" 2>/dev/null || true
for t in launcher-app stats-summary; do
  if [ -x "$build/examples/$t" ]; then cp "$build/examples/$t" "$dest/examples/"; fi
done
for t in bench/cudaoverlap-bench bench/cudaoverlap-bench-source \
         bench/cudaoverlap-callcost check/cudaoverlap-check check/cudaoverlap-soak; do
  if [ -x "$build/tools/$t" ]; then cp "$build/tools/$t" "$dest/tools/$t"; fi
done
# the debug information stays in BUILD: a carried build is smaller without it
find "$dest" -type f \( -perm -u+x -o -name '*.so' \) -exec strip --strip-debug {} + \
  2> /dev/null || true
if [ -f "$build/commit.txt" ]; then
  cp "$build/commit.txt" "$dest/"
else
  { git rev-parse HEAD && git status --porcelain --untracked-files=no |
    sed 's/^/modified: /'; } > "$dest/commit.txt" 2>/dev/null || true
fi
du -sh "$dest"
if [ -n "${3:-}" ] && [ "$(du -sm "$dest" | cut -f1)" -gt "$3" ]; then
  echo "$dest is larger than $3 MiB: build for one GPU family" \
    "(-Dcuda-architectures=90, see the top of $0)" >&2
  exit 1
fi
