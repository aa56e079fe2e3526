#!/bin/sh
# Install the Debian packages that are missing (when run as root), and say
# clearly what is missing otherwise.  The CUDA toolkit itself is not a Debian
# package here: it is expected in /usr/local/cuda.
missing=""
for p in "$@"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "installing:$missing"
    apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -q $missing >/dev/null || exit 1
  else
    echo "missing Debian packages:$missing" >&2
    echo "run 'make' as root, or: sudo apt-get install$missing" >&2
    exit 1
  fi
fi
if ! command -v nvcc >/dev/null 2>&1; then
  echo "nvcc not found: cudaoverlap needs the CUDA toolkit to build (also without a GPU)." >&2
  echo "Install it in /usr/local/cuda (its bin/ is put on PATH by the Makefile)." >&2
  exit 1
fi
