#!/usr/bin/env python3
"""Count meson's test results (testlog.json) and print one line:
'N passed, N failed, N skipped'.  Exit 1 if any failed or none ran.
  test-summary.py TESTLOG.json [NAME=STATUS ...]
Each NAME=STATUS is one more test run outside meson (CI's package check):
exit status 0 passed, 77 skipped, anything else failed."""
import json
import re
import sys


def result_of(line):
    """The test's result; a line that is not valid JSON (a test's output
    with bytes JSON does not take) is read for its "result" field."""
    try:
        return json.loads(line)["result"]
    except (ValueError, KeyError):
        m = re.search(r'"result"\s*:\s*"([A-Z]+)"', line)
        return m.group(1) if m else "ERROR"

counts = {"passed": 0, "failed": 0, "skipped": 0}
try:
    with open(sys.argv[1], errors="replace") as f:
        for line in f:
            if not line.strip():
                continue
            r = result_of(line)
            if r in ("OK", "EXPECTEDFAIL"):
                counts["passed"] += 1
            elif r == "SKIP":
                counts["skipped"] += 1
            else:
                counts["failed"] += 1
except OSError as e:
    print(f"no test log: {e}", file=sys.stderr)
    counts["failed"] += 1
for extra in sys.argv[2:]:
    name, _, status = extra.partition("=")
    if status == "0":
        counts["passed"] += 1
    elif status == "77":
        counts["skipped"] += 1
    else:
        print(f"{name}: failed (exit status {status})", file=sys.stderr)
        counts["failed"] += 1
print(f"{counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped")
sys.exit(1 if counts["failed"] or counts["passed"] == 0 else 0)
