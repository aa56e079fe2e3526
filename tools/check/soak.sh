#!/usr/bin/env bash
# The soak:  tools/check/soak.sh SECONDS OUTDIR [BUILD]
# Runs BUILD/tools/check/cudaoverlap-soak (BUILD default build; or the path
# of the tool itself) for SECONDS with --csv OUTDIR/soak.csv, its output also
# in OUTDIR/soak.log; CO_SOAK_ARGS: more options (--backend cpu, --width
# 1920 --height 1080, --period 2, -v ...).  Exit status: the tool's (0 flat,
# 1 growth, 2 error, 3 hang).
set -u
if [ $# -lt 2 ]; then
  echo "usage: $0 SECONDS OUTDIR [BUILD]" >&2
  exit 4
fi
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${3:-$here/build}
if [ -f "$build" ] && [ -x "$build" ]; then
  tool=$build
  build=$(dirname "$(dirname "$(dirname "$tool")")")
else
  tool=$build/tools/check/cudaoverlap-soak
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
