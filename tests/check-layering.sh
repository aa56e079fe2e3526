#!/bin/sh
# make check: the layers stay apart.
#  - dependencies point one way: elements/ -> plugin/ -> engine/ -> kernels/.
#    kernels/ includes nothing from engine/, plugin/ or elements/ (only the
#    plain-C kernel ABI, plugin/gst/cudaoverlap/cudaoverlap-kernel.h);
#    engine/ includes nothing from plugin/ or elements/; plugin/ includes
#    no element header except in the plugin's registration
#    (plugin/gstcudaoverlap.c);
#  - engine/ and kernels/ include no GStreamer header (<gst/...>): the engine
#    and the kernels know GLib and CUDA only;
#  - the files of engine/ and kernels/ include each other in no circle, and
#    the engine's generic part (engine/co-engine.c) names no backend: no
#    backend header, no co_cuda_* or co_cpu_* symbol (it goes through the
#    table of co-engine-private.h);
#  - no file of engine/, kernels/, plugin/ or elements/ reads the environment
#    (getenv, g_getenv): test hooks are a build option (engine/co-fault.h);
#  - no function in those folders is longer than 80 lines.
# Usage: check-layering.sh [SOURCE_ROOT]
cd "${1:-$(dirname "$0")/..}" || exit 1
status=0
fail () {
  echo "FAIL: $*"
  status=1
}

src=$(ls engine/*.c engine/*.h kernels/*.c kernels/*.h kernels/*.cu 2>/dev/null)
[ -n "$src" ] || { echo "FAIL: no engine/ or kernels/ sources here"; exit 1; }

# 0. one direction: the files a layer includes with "" exist in no layer
# above it
includes () {
  grep -HE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$@" 2>/dev/null |
    sed -E 's/^([^:]+):.*"([^"]+)".*/\1 \2/'
}
check_up () {
  layer=$1; shift
  includes $layer/*.c $layer/*.h $layer/*.cu | while read -r f inc; do
    for d in "$@"; do
      [ -e "$d/$(basename "$inc")" ] && echo "$f includes $d/$(basename "$inc")"
    done
  done
}
up=$(check_up kernels engine plugin elements; check_up engine plugin elements;
  check_up plugin elements | grep -v '^plugin/gstcudaoverlap\.c ')
[ -z "$up" ] || fail "an include against the layers' direction:
$up"

# 1. no GStreamer below plugin/: no header, and no gst dependency on the
# engine library's link line
if sed -n '/^coengine_lib = /,/^coengine_dep = /p' engine/meson.build | grep -q 'gst'; then
  fail "engine/meson.build: the engine library (coengine) depends on GStreamer"
fi
for f in $src; do
  if grep -Eq '^[[:space:]]*#[[:space:]]*include[[:space:]]*<gst/' "$f"; then
    fail "$f includes a GStreamer header: $(grep -E '#[[:space:]]*include[[:space:]]*<gst/' "$f" | head -1)"
  fi
done

# 2a. the generic engine names no backend
if grep -Eq '#[[:space:]]*include[[:space:]]*"co-engine-(cuda|cpu)' engine/co-engine.c; then
  fail "engine/co-engine.c includes a backend's header"
fi
if grep -En '\bco_(cuda|cpu)_[a-z_]+' engine/co-engine.c; then
  fail "engine/co-engine.c names a backend's symbol (above)"
fi
# 2b. no include circle among engine/ and kernels/
cycle=$(for f in $src; do
  grep -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" |
    sed -E 's/.*"([^"]+)".*/\1/' | while read -r inc; do
      echo "$(basename "$f") $inc"
    done
done | awk '
  { edges[$1] = edges[$1] " " $2; nodes[$1] = 1; nodes[$2] = 1 }
  function visit(n,   i, k, m, parts) {
    if (state[n] == 1) { found = found " " n; return 1 }
    if (state[n] == 2) return 0
    state[n] = 1
    k = split(edges[n], parts, " ")
    for (i = 1; i <= k; i++)
      if (visit(parts[i])) { found = found " <- " n; return 1 }
    state[n] = 2
    return 0
  }
  END {
    for (m in nodes)
      if (!state[m] && visit(m)) { print found; exit }
  }')
[ -z "$cycle" ] || fail "include circle:$cycle"

# 3. no environment knobs in production code
envs=$(grep -EnH '\b(g_)?getenv[[:space:]]*\(' $src plugin/*.c plugin/*.h elements/*.c elements/*.h 2>/dev/null)
[ -z "$envs" ] || fail "production code reads the environment:
$envs"

# 4. no production function longer than 80 lines (a body between a "{" and
# a "}" alone on their lines, as gst-indent writes a function)
long=$(for f in engine/*.c kernels/*.c kernels/*.cu plugin/*.c elements/*.c; do
  awk -v f="$f" '/^\{$/ { s = NR } /^\}$/ && s { if (NR - s > 80) print f ":" s ": " NR - s " lines"; s = 0 }' "$f"
done)
[ -z "$long" ] || fail "functions over 80 lines:
$long"

[ $status -eq 0 ] && echo "layering: OK"
exit $status
