#!/usr/bin/env bash
# make check (test bench-gate): the bench gate end to end on the CPU backend,
#   tools/bench/check-bench.sh BUILD
# run-bench.sh writes a CSV, which must hold the gate's rows (per label the
# defaults and the 2 x 1 rows, each input's harness control); compared with
# itself nothing is flagged; against a doctored copy whose ratios are 25 %
# higher every gated row is flagged, in one run and in two; against a copy
# doctored in one of two runs only, nothing; against another backend's
# rows, nothing is compared (exit 2).
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

CO_BENCH_BACKEND=cpu "$here/run-bench.sh" "$build" "$tmp/run.csv" > "$tmp/run.log" 2>&1 ||
  { cat "$tmp/run.log"; fail "run-bench.sh failed"; }
grep -q "^== NO GPU" "$tmp/run.log" || fail "the CPU run does not say that it is not the gate's"
python3 - "$tmp" <<'PY' || exit 1
import csv, sys
tmp = sys.argv[1]
rows = list(csv.DictReader(open(tmp + "/run.csv", newline="")))
def has(**kw):
    return any(all(r[k] == v for k, v in kw.items()) and r["check"].startswith("ok")
               for r in rows)
missing = []
for label in ("main", "small"):
    for inp in ("pinned", "registered", "slots"):
        for want in (dict(name="element", mode="overlap", streams="2", chunks="1"),
                     dict(name="defaults", mode="auto"),
                     dict(name="control", mode="identity")):
            if not has(label=label, input=inp, **want):
                missing.append((label, inp, want["name"]))
for inp in ("registered", "slots"):
    if not has(label="short", input=inp, name="processes"):
        missing.append(("short", inp, "processes"))
if missing:
    sys.exit("FAIL: rows missing or not ok: %s" % missing)
if any(r["backend"] != "cpu" for r in rows):
    sys.exit("FAIL: backend column")
# doctored copies: every ratio 25 % higher; and another backend's rows
def write(path, change):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        for r in rows:
            w.writerow(change(dict(r)))
def up(r):
    for c in ("x_raw", "x_control"):
        if r[c]:
            r[c] = "%.5f" % (float(r[c]) * 1.25)
    return r
def gpu(r):
    r["backend"] = "cuda"
    return r
write(tmp + "/doctored.csv", up)
write(tmp + "/gpu.csv", gpu)
PY
cmp=("$here/bench-compare.py")
python3 "${cmp[@]}" "$tmp/run.csv" "$tmp/run.csv" > "$tmp/c1.log" ||
  { cat "$tmp/c1.log"; fail "a run compared with its own CSV is flagged"; }
python3 "${cmp[@]}" "$tmp/doctored.csv" "$tmp/run.csv" > "$tmp/c2.log"
[ $? = 1 ] || { cat "$tmp/c2.log"; fail "the doctored CSV is not flagged"; }
n=$(grep -c FLAGGED "$tmp/c2.log")
g=$(grep -c "^| .* | ratio to " "$tmp/c2.log")
if [ "$n" != "$g" ] || [ "$n" = 0 ]; then
  cat "$tmp/c2.log"; fail "$n of $g gated rows flagged"
fi
python3 "${cmp[@]}" "$tmp/doctored.csv" "$tmp/run.csv" "$tmp/run.csv" > "$tmp/c3.log"
[ $? = 1 ] || { cat "$tmp/c3.log"; fail "flagged in two runs, not reported"; }
python3 "${cmp[@]}" "$tmp/doctored.csv" "$tmp/run.csv" "$tmp/doctored.csv" > "$tmp/c4.log" ||
  { cat "$tmp/c4.log"; fail "a row flagged in one run of two only fails the gate"; }
python3 "${cmp[@]}" "$tmp/gpu.csv" "$tmp/run.csv" > "$tmp/c5.log"
[ $? = 2 ] || { cat "$tmp/c5.log"; fail "another backend's rows were compared"; }
echo "ok: $(( $(wc -l < "$tmp/run.csv") - 1 )) rows written; compared with itself:" \
  "none flagged; doctored: $n of $g gated rows flagged (one run and two);" \
  "doctored in one run of two: none; another backend: not compared"
