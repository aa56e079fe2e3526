#!/usr/bin/env bash
# make check (test bench-gate): the bench gate end to end on the CPU backend,
#   tools/bench/check-bench.sh BUILD
# run-bench.sh --repeat=2 writes a CSV, which must hold the gate's rows (per
# label the defaults and the 2 x 1 rows, each input's harness control, and
# memcpy-best where slots are an input; the
# gamma label's constant rows and their ramp twins, each twin with its ratio
# to the constant row), each row the median of the 2 repeats kept beside it; the median merge of three
# doctored repeats gives per cell the middle value, and a check that failed
# in one repeat fails the row; compared with itself nothing is flagged;
# against a doctored copy whose ratios are 25 % higher every gated row is
# flagged, in one run and in two; against a copy doctored in one of two runs
# only, nothing; a control row whose ratio to the ceiling halves is reported
# and not flagged; against another backend's rows, nothing is compared
# (exit 2).
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

CO_BENCH_BACKEND=cpu "$here/run-bench.sh" --repeat=2 "$build" "$tmp/run.csv" > "$tmp/run.log" 2>&1 ||
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
gate_inputs = {
    "main": ("pinned", "registered", "slots", "slots-pinned", "recurring"),
    "small": ("pinned", "registered", "slots", "slots-pinned", "recurring"),
    "gray": ("registered", "recurring", "slots", "slots-pinned"),
}
for label, inputs in gate_inputs.items():
    for inp in inputs:
        for want in (dict(name="element", mode="overlap", streams="2", chunks="1"),
                     dict(name="defaults", mode="auto"),
                     dict(name="control", mode="identity")):
            if not has(label=label, input=inp, **want):
                missing.append((label, inp, want["name"]))
    # the staged frames' bound beside the slots rows
    if not has(label=label, name="memcpy-best"):
        missing.append((label, "memcpy-best"))
for inp in ("registered", "slots"):
    if not has(label="short", input=inp, name="processes"):
        missing.append(("short", inp, "processes"))
for inp in ("pinned", "registered"):
    for name, mode in (("element", "overlap"), ("defaults", "auto")):
        for m in (mode, mode + " ramp"):
            if not has(label="gamma", input=inp, name=name, mode=m):
                missing.append(("gamma", inp, name, m))
        ramp = [r for r in rows if (r["label"], r["input"], r["name"], r["mode"])
                == ("gamma", inp, name, mode + " ramp")]
        if not ramp or not ramp[0]["x_constant"]:
            missing.append(("gamma", inp, name, mode + " ramp", "x_constant"))
if missing:
    sys.exit("FAIL: rows missing or not ok: %s" % missing)
if any(r["backend"] != "cpu" for r in rows):
    sys.exit("FAIL: backend column")
reps = [list(csv.DictReader(open(tmp + "/run.repeats/repeat-%d.csv" % i, newline="")))
        for i in (1, 2)]
if any(r["repeats"] != "2" for r in rows) or any(len(x) != len(rows) for x in reps):
    sys.exit("FAIL: not every row the median of the 2 repeats in run.repeats/")
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
def scale(f, fail=False):
    def change(r):
        for c in ("fps", "x_control"):
            if r[c]:
                r[c] = "%.5f" % (float(r[c]) * f)
        if fail and r["name"] == "element":
            r["check"] = "FAILED 1/16"
        return r
    return change
def control(x):
    def change(r):
        if r["name"] == "control":
            r["x_raw"] = "%.5f" % x
        return r
    return change
write(tmp + "/doctored.csv", up)
write(tmp + "/gpu.csv", gpu)
write(tmp + "/control-10.csv", control(10))
write(tmp + "/control-5.csv", control(5))
for name, f, fail in (("a", 0.5, False), ("b", 1.0, True), ("c", 4.0, False)):
    write(tmp + "/rep-%s.csv" % name, scale(f, fail))
PY
python3 "$here/bench-compare.py" --median "$tmp/median.csv" "$tmp/rep-a.csv" \
  "$tmp/rep-b.csv" "$tmp/rep-c.csv" > "$tmp/m.log" || { cat "$tmp/m.log"; fail "the median merge"; }
python3 - "$tmp" <<'PY' || exit 1
import csv, sys
tmp = sys.argv[1]
def rows(name):
    return list(csv.DictReader(open(tmp + "/" + name, newline="")))
run, med = rows("run.csv"), rows("median.csv")
if len(run) != len(med):
    sys.exit("FAIL: median: %d rows of %d" % (len(med), len(run)))
for r, m in zip(run, med):
    for c in ("fps", "x_control"):
        if r[c] and abs(float(m[c]) - float(r[c])) > 1e-3 * float(r[c]) + 1e-4:
            sys.exit("FAIL: median %s of %s %s: %s, not %s" % (c, r["name"], r["input"], m[c], r[c]))
    if m["repeats"] != "3" or (m["check"].startswith("ok") != (r["name"] != "element")):
        sys.exit("FAIL: median check/repeats of %s %s: %s, %s" % (r["name"], r["input"], m["check"], m["repeats"]))
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
python3 "${cmp[@]}" "$tmp/control-10.csv" "$tmp/control-5.csv" "$tmp/control-5.csv" > "$tmp/c6.log" ||
  { cat "$tmp/c6.log"; fail "a control row that drops is flagged"; }
c=$(grep -c "^| .* control identity .* | not gated |$" "$tmp/c6.log")
[ "$c" -gt 0 ] || { cat "$tmp/c6.log"; fail "the control rows are not reported"; }
python3 "${cmp[@]}" "$tmp/gpu.csv" "$tmp/run.csv" > "$tmp/c5.log"
[ $? = 2 ] || { cat "$tmp/c5.log"; fail "another backend's rows were compared"; }
echo "ok: $(( $(wc -l < "$tmp/run.csv") - 1 )) rows written, each the median of 2 repeats;" \
  "median of 3 doctored repeats: right; compared with itself: none flagged;" \
  "doctored: $n of $g gated rows flagged (one run and two); doctored in one run" \
  "of two: none; $c control rows halved: reported, not flagged; another backend: not compared"
