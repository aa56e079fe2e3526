#!/bin/sh
# Install the Debian packages that are missing (when run as root), and say
# clearly what is missing otherwise.  The CUDA toolkit itself is not a Debian
# package here: without it the CPU-only plugin is built (a note says so).
#   tools/dev/install-deps.sh REQUIRED... [--optional OPTIONAL...]
# An optional package (one test skips without it, saying why) that cannot be
# installed (no root, no package registry) is reported and does not fail.
missing="" optional="" opt=0
for p in "$@"; do
  if [ "$p" = --optional ]; then opt=1; continue; fi
  dpkg -s "$p" >/dev/null 2>&1 && continue
  if [ $opt = 1 ]; then optional="$optional $p"; else missing="$missing $p"; fi
done
if [ -n "$missing$optional" ] && [ "$(id -u)" = 0 ]; then
  apt-get update -q >/dev/null 2>&1
fi
if [ -n "$missing" ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "installing:$missing"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing >/dev/null ||
      exit 1
  else
    echo "missing Debian packages:$missing" >&2
    echo "run 'make' as root, or: sudo apt-get install$missing" >&2
    exit 1
  fi
fi
if [ -n "$optional" ]; then
  if [ "$(id -u)" = 0 ] && DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -q $optional >/dev/null 2>&1; then
    echo "installed (optional):$optional"
  else
    echo "note: optional Debian packages not installed:$optional (the tests" \
      "that need them are skipped, with the reason)" >&2
  fi
fi
# The CUDA toolkit, where meson.build looks for it.  Without it the
# Makefile builds the CPU-only plugin (-Dcuda=disabled): said in one line.
nvcc=$(command -v nvcc 2>/dev/null)
for d in "${CUDA_PATH:-}" "${CUDA_HOME:-}" /usr/local/cuda; do
  [ -z "$nvcc" ] && [ -n "$d" ] && [ -x "$d/bin/nvcc" ] && nvcc=$d/bin/nvcc
done
if [ -z "$nvcc" ]; then
  echo "note: no CUDA toolkit (nvcc on PATH, in \$CUDA_PATH/bin, \$CUDA_HOME/bin or" \
    "/usr/local/cuda/bin): building the CPU-only plugin (-Dcuda=disabled, no" \
    "CUDA backend); install the CUDA toolkit for the GPU" >&2
fi
exit 0
