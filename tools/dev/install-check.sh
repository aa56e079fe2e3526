#!/bin/sh
# What a user of an installed cudaoverlap gets (make install-check, and the
# install-check test of make check):
#  1. the source tree configured with default options into a fresh build
#     with a prefix of its own, built and installed there (meson install);
#  2. exactly the plugin, the header and the pkg-config file installed (the
#     tools only with -Dtools=enabled: checked on a configuration alone);
#  3. examples/stats-summary.c compiled against the installed pkg-config
#     file (gstreamer-cudaoverlap-1.0), an example kernel (examples/kernels/
#     invert: its CPU function with cc, its .cu to PTX with nvcc) against the
#     installed ABI header, and stats-summary run with GST_PLUGIN_PATH at the
#     installed plugin (its pluginsdir variable), which gst-inspect-1.0 must
#     name as the one it loads, with the package's origin.
#   tools/dev/install-check.sh [SOURCE_ROOT] [WORK_DIR] [MESON_OPTION...]
# WORK_DIR (default: a new temporary folder) is emptied first and kept.
# MESON_OPTION: for the build, e.g. -Dcuda=disabled (the CPU-only plugin:
# then no tools and no kernel through nvcc).
set -u
src=$(cd "${1:-$(dirname "$0")/../..}" && pwd) || exit 1
work=${2:-$(mktemp -d)}
case $work in /*) ;; *) work=$PWD/$work;; esac
if [ $# -gt 2 ]; then shift 2; else set --; fi
cuda=yes
for o in "$@"; do [ "$o" = -Dcuda=disabled ] && cuda=no; done
rm -rf "$work" && mkdir -p "$work" || exit 1
prefix=$work/prefix
fail () {
  echo "install-check: FAIL: $*"
  exit 1
}
# step LOG COMMAND...: runs COMMAND with its output in $work/LOG, shown on
# failure
step () {
  log=$work/$1; shift
  "$@" > "$log" 2>&1 || { cat "$log"; fail "$* (log: $log)"; }
}

step setup.log meson setup "$work/build" "$src" --prefix "$prefix" -Dtests=disabled "$@"
step install.log meson install -C "$work/build"

# 2. what was installed
pc=$(find "$prefix" -name gstreamer-cudaoverlap-1.0.pc)
[ -n "$pc" ] || fail "no gstreamer-cudaoverlap-1.0.pc under $prefix"
libdir=$(dirname "$(dirname "$pc")")
have=$(cd "$prefix" && find . -type f -o -type l | sort)
want=$(printf '%s\n' "./include/gstreamer-1.0/gst/cudaoverlap/cudaoverlap.h" \
  "./include/gstreamer-1.0/gst/cudaoverlap/cudaoverlap-kernel.h" \
  ".${libdir#"$prefix"}/gstreamer-1.0/libgstcudaoverlap.so" \
  ".${libdir#"$prefix"}/pkgconfig/gstreamer-cudaoverlap-1.0.pc" | sort)
[ "$have" = "$want" ] || fail "installed:
$have
expected:
$want"
if [ $cuda = yes ]; then
  step tools.log meson setup "$work/build-tools" "$src" --prefix "$prefix" \
    -Dtests=disabled -Dtools=enabled "$@"
  meson introspect "$work/build-tools" --installed | grep -q '/bin/cudaoverlap-bench"' ||
    fail "-Dtools=enabled does not install cudaoverlap-bench"
fi

# 3. an application built against the installed pkg-config file
export PKG_CONFIG_PATH="$libdir/pkgconfig"
flags=$(pkg-config --cflags --libs gstreamer-cudaoverlap-1.0) ||
  fail "pkg-config gstreamer-cudaoverlap-1.0"
echo "install-check: cc stats-summary.c $flags"
# shellcheck disable=SC2086  # the flags are words
step cc.log cc -Wall -o "$work/stats-summary" "$src/examples/stats-summary.c" $flags
# a kernel of the user's against the installed ABI header (docs/custom-kernels.md)
inc=$(pkg-config --cflags-only-I gstreamer-cudaoverlap-1.0)
# shellcheck disable=SC2086  # the flags are words
step kernel-cc.log cc -Wall -O2 -shared -fPIC -o "$work/libco-invert-cpu.so" \
  "$src/examples/kernels/invert-cpu.c" $inc
if [ $cuda = yes ]; then
  nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
  # shellcheck disable=SC2086
  step kernel-nvcc.log "$nvcc" -ptx -arch=compute_75 $inc -o "$work/invert.ptx" \
    "$src/examples/kernels/invert.cu"
fi
pluginsdir=$(pkg-config --variable=pluginsdir gstreamer-cudaoverlap-1.0)
[ "$pluginsdir" = "$libdir/gstreamer-1.0" ] || fail "pluginsdir is $pluginsdir"
export GST_PLUGIN_PATH="$pluginsdir"
# GStreamer's own plugins (videotestsrc) and nothing else
GST_PLUGIN_SYSTEM_PATH_1_0=$(pkg-config --variable=pluginsdir gstreamer-1.0)
export GST_PLUGIN_SYSTEM_PATH_1_0
export GST_REGISTRY_1_0="$work/registry.bin"
step inspect.log gst-inspect-1.0 cudaoverlap
grep -Eq "Filename +$pluginsdir/libgstcudaoverlap.so" "$work/inspect.log" ||
  fail "gst-inspect-1.0 does not load the installed plugin: $(cat "$work/inspect.log")"
grep -Eq "Origin URL +https?://" "$work/inspect.log" ||
  fail "the plugin reports no origin URL"
"$work/stats-summary" --frames 12 --width 320 --height 240 \
  --operation box-blur --stats-interval 1000000 || fail "stats-summary"
echo "install-check: OK (installed in $prefix)"
