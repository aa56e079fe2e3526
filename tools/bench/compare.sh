#!/usr/bin/env bash
# The bench gate (make bench-compare; docs/bench.md):
#   tools/bench/compare.sh BUILD COMMITTED_CSV [WORK_DIR]
# Runs the bench (run-bench.sh: per row the median of its repeats,
# BENCH_REPEAT, 3 on a GPU) and compares its CSV with the committed one, a
# median too (bench-compare.py): when a gated row's ratio to its ceiling is
# more than 5 % below the committed one, it runs the bench once more, and
# fails only on the rows flagged in both runs.  The control rows are
# reported, never flagged.  The runs' CSVs (and their repeats, in
# runN.repeats/) stay in WORK_DIR (default BUILD/bench-compare).  Two runs
# of 3 repeats take under 3 minutes of device time.
# Exit status: 0 nothing flagged, 1 rows flagged in two consecutive runs (or
# a run failed), 2 nothing to compare (no committed CSV, or it holds another
# backend's rows: a GPU's rows against a run without a GPU).
set -u
if [ $# -lt 2 ] || [ ! -d "$1" ]; then
  echo "usage: $0 BUILD COMMITTED_CSV [WORK_DIR]" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
build=$1
committed=$2
work=${3:-$build/bench-compare}
if [ ! -f "$committed" ]; then
  echo "compare: no committed CSV $committed (make bench BENCH_CSV=$committed writes one)" >&2
  exit 2
fi
mkdir -p "$work"
"$here/run-bench.sh" "$build" "$work/run1.csv" || exit 1
python3 "$here/bench-compare.py" "$committed" "$work/run1.csv"
rc=$?
[ $rc = 1 ] || exit $rc
echo "== rows flagged: the bench once more, to see whether they stay below"
"$here/run-bench.sh" "$build" "$work/run2.csv" || exit 1
python3 "$here/bench-compare.py" "$committed" "$work/run1.csv" "$work/run2.csv"
