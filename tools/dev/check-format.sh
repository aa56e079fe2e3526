#!/bin/sh
# make check: every tracked .c and .h file is formatted with tools/dev/gst-indent.
# Skipped (exit 77, meson's "skipped") where GNU indent, the formatter, is
# not installed, or outside a git checkout.
cd "$(dirname "$0")/../.." || exit 1
if ! command -v indent >/dev/null 2>&1; then
  echo "SKIP: GNU indent (the formatter of tools/dev/gst-indent) is not installed: apt-get install indent"
  exit 77
fi
files=$(git ls-files '*.c' '*.h' 2>/dev/null)
[ -n "$files" ] || { echo "SKIP: not a git checkout"; exit 77; }
exec tools/dev/gst-indent --check $files
