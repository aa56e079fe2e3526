#!/usr/bin/env bash
# The bench gate's rows (make bench; docs/bench.md):
#   tools/bench/run-bench.sh [--repeat=R] BUILD [CSV]
# Runs BUILD's cudaoverlap-bench five times, each run a label of the CSV:
#   main   4K RGBA frames
#   small  640x360 RGBA frames (the per-frame costs)
#   gray   GRAY8 640x480 frames from an application's buffers (small frames
#          from any memory)
#   short  1080p RGBA, 60 frames and no warm-up, also in a fresh process
#   gamma  1080p RGBA, operation=gamma: gamma 2.2 constant, and each row
#          again with gamma ramped by a GstController control source
# Each of main, small, short: the raw ceiling (the raw loop: the same
# kernel, frames and buffers; raw-best), the element at 2 streams x 1 chunk
# and with its defaults, and the harness control (identity in the element's
# place), per input (pinned: the element's pool; registered: one malloc()ed
# ring; slots: 8 slots handed back by their memory's destroy notify;
# slots-pinned: the same, page-locked by the application; recurring: 8
# malloc()ed buffers, each one GstMemory for the run, a new GstBuffer over
# one once the last was freed); with slots also the memcpy rows (the bound
# of staged frames).  gray: registered, recurring, slots, slots-pinned (not
# pinned: the element's pool is the small frames' known case).
# gamma: the element at 2 x 1 and with its defaults, pinned and registered
# input, each row followed by its ramp twin (mode "overlap ramp", "auto
# ramp": gamma 0.5 at the first frame to 2.5 at the last, linear), whose
# x_constant column is its frames/s over the constant row's; no raw rows
# and no control (nothing gates them).  Every run: the priming frames and a
# stated sample of the timed outputs checked off the timed threads.
# The five runs are repeated R times (--repeat, or BENCH_REPEAT; default 3
# on a GPU, 1 without): a single run of a row on a GPU moves by more than
# the gate's 5 %, once in a while far more.  Prints the tables of every
# repeat, keeps each repeat's rows in CSV.repeats/repeat-N.csv and writes
# to CSV (default BUILD/bench.csv) per row the median of the repeats (every
# numeric column its own median; the check ok only if every repeat's was; a
# repeats column; bench-compare.py --median).  Nothing is built or
# installed: a build carried to a GPU machine runs as it is.
# Without a GPU (no nvidia-smi -L, or CO_BENCH_BACKEND=cpu) the same rows run
# small and short on the CPU backend, to test the bench end to end: they are
# the CPU backend's, not the gate's, and the output says so.
# Exit status: 0, 1 when a check or a run failed, 2 on a usage error.
set -u
repeat=${BENCH_REPEAT:-}
case ${1:-} in
  --repeat=*) repeat=${1#--repeat=}; shift ;;
esac
if [ $# -lt 1 ] || [ ! -d "$1" ] || ! [[ ${repeat:-1} =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: $0 [--repeat=R] BUILD [CSV]  (R >= 1, also BENCH_REPEAT)" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$1" && pwd)
csv=${2:-$build/bench.csv}
bench=$build/tools/bench/cudaoverlap-bench
if [ ! -x "$bench" ]; then
  echo "run-bench: no $bench (build with -Dtools=auto or enabled)" >&2
  exit 2
fi
export GST_PLUGIN_PATH=$build/plugin${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GST_REGISTRY_1_0=$work/registry.bin

backend=${CO_BENCH_BACKEND:-}
if [ -z "$backend" ]; then
  if nvidia-smi -L > /dev/null 2>&1; then backend=cuda; else backend=cpu; fi
fi
common=(--backend="$backend" --format=RGBA --streams=2 --chunks=1 --defaults
        --slots=8)
# shellcheck disable=SC2034 # main, small, short, gamma: read through opts below
if [ "$backend" = cuda ]; then
  main=(--width=3840 --height=2160 --frames=300 --warmup=30 --check-every=8)
  small=(--width=640 --height=360 --frames=2000 --warmup=200 --check-every=16)
  short=(--width=1920 --height=1080 --frames=60 --warmup=0 --raw-frames=300
         --raw-warmup=30 --check-every=1)
  gamma=(--width=1920 --height=1080 --frames=600 --warmup=60 --check-every=8)
  gray=(--format=GRAY8 --width=640 --height=480 --frames=4000 --warmup=400
        --check-every=16)
  banner="backend cuda: the bench gate's rows"
else
  main=(--width=640 --height=360 --frames=60 --warmup=5 --check-every=4)
  small=(--width=160 --height=120 --frames=300 --warmup=20 --check-every=8)
  short=(--width=320 --height=240 --frames=20 --warmup=0 --check-every=1)
  gamma=(--width=320 --height=240 --frames=40 --warmup=5 --check-every=4)
  gray=(--format=GRAY8 --width=160 --height=120 --frames=200 --warmup=20
        --check-every=8)
  banner="NO GPU: these are the CPU backend's rows, small and short, to test the bench; they are not the gate's"
fi
if [ -z "$repeat" ]; then
  if [ "$backend" = cuda ]; then repeat=3; else repeat=1; fi
fi
echo "== $banner"
rc=0
reps=${csv%.csv}.repeats
rm -rf "$reps"
mkdir -p "$reps" || exit 1
repeats=()
for ((r = 1; r <= repeat; r++)); do
  for run in main small short gamma gray; do
    declare -n opts=$run
    case $run in
      short) extra=("--only=raw" "--input=registered,slots" --processes=1 --control) ;;
      gamma) extra=(--op=gamma --gamma-ramp "--only=overlap" "--input=pinned,registered") ;;
      gray) extra=("--only=raw,overlap" "--input=registered,recurring,slots,slots-pinned" --control) ;;
      *) extra=("--only=raw,overlap" "--input=pinned,registered,slots,slots-pinned,recurring" --control) ;;
    esac
    echo "== repeat $r/$repeat, $run: cudaoverlap-bench ${common[*]} ${opts[*]} ${extra[*]}"
    rm -f "$work/$run.csv"
    timeout 300 "$bench" "${common[@]}" "${opts[@]}" "${extra[@]}" --label=$run \
      --csv="$work/$run.csv" || rc=1
  done
  repeats+=("$reps/repeat-$r.csv")
  { head -n 1 "$work/main.csv"; for run in main small short gamma gray; do
      tail -n +2 "$work/$run.csv" 2>/dev/null; done; } > "$reps/repeat-$r.csv" || rc=1
done
python3 "$here/bench-compare.py" --median "$csv" "${repeats[@]}" || rc=1
echo "== $banner"
echo "== CSV: $csv ($(( $(wc -l < "$csv") - 1 )) rows, each the median of $repeat repeat(s); the repeats' rows in $reps)"
[ $rc = 0 ] || echo "== a run or a check FAILED (see above)"
exit $rc
