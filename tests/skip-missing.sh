#!/bin/sh
# Stands in for a test whose dependencies were not found when the build was
# configured with -Dtests=auto: the test is reported skipped (exit 77) with
# what is missing, never dropped silently.
#   skip-missing.sh WHAT...
what=""
for w in "$@"; do what="${what:+$what, }$w"; done
echo "SKIP: not built: missing $what; install what is missing and reconfigure (-Dtests=enabled makes this an error)"
exit 77
