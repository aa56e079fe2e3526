#!/bin/sh
# make check: every tracked .c and .h file is formatted with tools/gst-indent.
cd "$(dirname "$0")/.." || exit 1
files=$(git ls-files '*.c' '*.h' 2>/dev/null)
[ -n "$files" ] || { echo "SKIP: not a git checkout"; exit 77; }
exec tools/gst-indent --check $files
