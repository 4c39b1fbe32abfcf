#!/usr/bin/env python3
"""Counts test cases from a `meson test` log (meson-logs/testlog.json).

A doctest binary contributes its own test-case counts (from its summary
line); any other test counts as one. A doctest binary that died before its
summary counts as one failure. Prints "<passed> <failed>" and, on stderr,
the output of every failing test.
"""
import json
import re
import sys

SUMMARY = re.compile(r"\[doctest\] test cases:\s*(\d+)\s*\|\s*(\d+) passed\s*\|\s*(\d+) failed")


def main(path, label):
    passed = failed = 0
    with open(path) as log:
        for line in log:
            entry = json.loads(line)
            output = entry.get("stdout", "") or ""
            ok = entry.get("result") == "OK"
            match = SUMMARY.search(output)
            if match:
                p, f = int(match.group(2)), int(match.group(3))
                if not ok and f == 0:
                    f = 1  # crashed or leaked after its summary
            else:
                p, f = (1, 0) if ok else (0, 1)
            passed += p
            failed += f
            if not ok:
                sys.stderr.write(f"---- {label}: {entry.get('name')} failed ----\n")
                sys.stderr.write(output[-20000:])
                sys.stderr.write((entry.get("stderr", "") or "")[-5000:])
                sys.stderr.write("\n")
    print(passed, failed)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
