#!/usr/bin/env bash
# The soak (issue 12, item 8):  tools/soak.sh SECONDS OUTDIR
# Runs build/tools/cudaoverlap-soak (CO_SOAK_BUILD: another build folder, or
# the tool itself) for SECONDS with --csv OUTDIR/soak.csv, its output also
# in OUTDIR/soak.log; CO_SOAK_ARGS: more options (--backend cpu, --width
# 1920 --height 1080, --period 2, -v ...).  Exit status: the tool's (0 flat,
# 1 growth, 2 error, 3 hang).
set -u
if [ $# -lt 2 ]; then
  echo "usage: $0 SECONDS OUTDIR" >&2
  exit 4
fi
here=$(cd "$(dirname "$0")/.." && pwd)
build=${CO_SOAK_BUILD:-$here/build}
if [ -f "$build" ] && [ -x "$build" ]; then
  tool=$build
  build=$(dirname "$(dirname "$tool")")
else
  tool=$build/tools/cudaoverlap-soak
fi
if [ ! -x "$tool" ]; then
  echo "soak: no $tool (make build first)" >&2
  exit 4
fi
export GST_PLUGIN_PATH=${GST_PLUGIN_PATH:-$build/plugin}
mkdir -p "$2"
# shellcheck disable=SC2086 # CO_SOAK_ARGS is a list of options
"$tool" --seconds "$1" --csv "$2/soak.csv" ${CO_SOAK_ARGS:-} 2>&1 |
  tee "$2/soak.log"
exit "${PIPESTATUS[0]}"
