#!/bin/sh
# The Debian packages as a user gets them (make deb, and CI after it): each
# .deb of DIR unpacked (dpkg -x) into one temporary root, nothing installed
# on the system, then
#  1. gstreamer1.0-cudaoverlap: the plugin in the system plugin folder
#     (/usr/lib/<multiarch>/gstreamer-1.0), loaded from the temporary root by
#     gst-inspect-1.0 (no other plugin), both elements registered, with the
#     package's name and version; linked to neither libcudart nor libcuda
#     (cudart is static, the driver's libcuda is loaded at run time);
#     Depends without the NVIDIA driver (apt installs it without non-free);
#  2. gstreamer1.0-cudaoverlap-dev: both headers and the pkg-config file,
#     whose pluginsdir is that folder; a C file that includes the headers
#     compiles against them.
#   tools/dev/check-deb.sh [DIR]    (default build-deb)
set -u
dir=${1:-build-deb}
fail () {
  echo "check-deb: FAIL: $*"
  exit 1
}
plugin_deb=$(find "$dir" -maxdepth 1 -name 'gstreamer1.0-cudaoverlap_*.deb' | head -1)
dev_deb=$(find "$dir" -maxdepth 1 -name 'gstreamer1.0-cudaoverlap-dev_*.deb' | head -1)
[ -n "$plugin_deb" ] || fail "no gstreamer1.0-cudaoverlap_*.deb in $dir"
[ -n "$dev_deb" ] || fail "no gstreamer1.0-cudaoverlap-dev_*.deb in $dir"
root=$(mktemp -d) || exit 1
trap 'rm -rf "$root"' EXIT
for d in "$plugin_deb" "$dev_deb"; do
  dpkg -x "$d" "$root/root" || fail "dpkg -x $d"
  echo "check-deb: $(basename "$d"): $(du -k "$d" | cut -f1) KiB," \
    "$(dpkg-deb -c "$d" | grep -vc '/$') files"
done
r=$root/root

# 1. the plugin
version=$(dpkg-deb -f "$plugin_deb" Version)
ma=$(dpkg-architecture -q DEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
pdir=/usr/lib/$ma/gstreamer-1.0
so=$r$pdir/libgstcudaoverlap.so
[ -f "$so" ] || fail "no $pdir/libgstcudaoverlap.so in $(basename "$plugin_deb")"
others=$(dpkg-deb -c "$plugin_deb" | awk '{print $6}' | grep -v '/$' |
  grep -v "^\./usr/share/doc/gstreamer1.0-cudaoverlap/" |
  grep -vx "\.$pdir/libgstcudaoverlap.so")
[ -z "$others" ] || fail "unexpected files in the plugin package: $others"
needed=$(objdump -p "$so" | awk '$1 == "NEEDED" {print $2}')
echo "$needed" | grep -Eq '^lib(cudart|cuda)\.' &&
  fail "the plugin links $(echo "$needed" | grep -E '^lib(cudart|cuda)\.')"
dpkg-deb -f "$plugin_deb" Depends | grep -Eiq 'cuda|nvidia' &&
  fail "Depends names the NVIDIA driver: $(dpkg-deb -f "$plugin_deb" Depends)"
for e in cudavideofilter cudaaudiofilter; do
  log=$root/inspect-$e.log
  GST_PLUGIN_SYSTEM_PATH_1_0='' GST_PLUGIN_PATH=$r$pdir \
    GST_REGISTRY_1_0=$root/registry.bin gst-inspect-1.0 $e > "$log" 2>&1 ||
    { cat "$log"; fail "gst-inspect-1.0 $e from the unpacked package"; }
  grep -Eq "Filename +$so\$" "$log" ||
    fail "gst-inspect-1.0 $e does not load $so: $(grep Filename "$log")"
done
grep -Eq "Binary package +cudaoverlap Debian package\$" "$log" ||
  fail "the plugin does not report the Debian package: $(grep 'Binary package' "$log")"
grep -Eq "Version +${version%%-*}\$" "$log" ||
  fail "the plugin's version is not the package's ($version): $(grep -E '^ +Version' "$log")"

# 2. the development files
inc=$r/usr/include/gstreamer-1.0/gst/cudaoverlap
for h in cudaoverlap.h cudaoverlap-kernel.h; do
  [ -f "$inc/$h" ] || fail "no gst/cudaoverlap/$h in $(basename "$dev_deb")"
done
pc=$r/usr/lib/$ma/pkgconfig/gstreamer-cudaoverlap-1.0.pc
[ -f "$pc" ] || fail "no /usr/lib/$ma/pkgconfig/gstreamer-cudaoverlap-1.0.pc in $(basename "$dev_deb")"
export PKG_CONFIG_PATH="$r/usr/lib/$ma/pkgconfig"
[ "$(pkg-config --variable=pluginsdir gstreamer-cudaoverlap-1.0)" = "$pdir" ] ||
  fail "pluginsdir is $(pkg-config --variable=pluginsdir gstreamer-cudaoverlap-1.0), not $pdir"
pkg-config --cflags-only-I gstreamer-cudaoverlap-1.0 |
  grep -q -- "-I/usr/include/gstreamer-1.0" ||
  fail "the .pc's Cflags lack -I/usr/include/gstreamer-1.0"
printf '%s\n' '#include <gst/cudaoverlap/cudaoverlap.h>' \
  '#include <gst/cudaoverlap/cudaoverlap-kernel.h>' \
  'const char *name = GST_CUDA_OVERLAP_MESSAGE_STATS;' > "$root/use.c"
# the unpacked headers first, then what the .pc adds (GStreamer's)
# shellcheck disable=SC2046  # the flags are words
cc -Wall -fsyntax-only -I"$r/usr/include/gstreamer-1.0" \
  $(pkg-config --cflags gstreamer-cudaoverlap-1.0) "$root/use.c" ||
  fail "a C file including the headers does not compile against the .pc"
echo "check-deb: OK ($version: the plugin loads from the unpacked package," \
  "the headers and the pkg-config file work)"
