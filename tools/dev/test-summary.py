#!/usr/bin/env python3
"""Count meson's test results (testlog.json, of one build or several:
test-summary.py LOG...) and print one line over all of them:
'N passed, N failed, N skipped'.  Exit 1 if any failed or none ran."""
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
for path in sys.argv[1:] or ["(none given)"]:
    try:
        with open(path, errors="replace") as f:
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
print(f"{counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped")
sys.exit(1 if counts["failed"] or counts["passed"] == 0 else 0)
