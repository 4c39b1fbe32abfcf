#!/usr/bin/env python3
"""Checks every language binding against bindings/CONFORMANCE.md and lake.h.

For each binding directory bindings/<language>/ (all but bindings/c):
  - every scenario ID of CONFORMANCE.md is named ("S-001", or "S001" in an
    identifier such as test_S001_…) by a test file of the binding (a file whose path below the binding contains "test"), or
    listed with a reason in the binding's CONFORMANCE-PENDING;
  - no test names an undefined ID; no pending ID is also tested;
  - every LAKE_API function of include/lake.h is named in the binding's
    non-test sources (its declarations).
Prints one line per binding and, on a failure, what is missing; exits 1 on
any failure. Usage: check_bindings.py [REPO_ROOT]
"""
import pathlib
import re
import sys

# A scenario ID as written ("S-001") or inside an identifier ("test_S001_…").
ID = re.compile(r"(?<![A-Za-z0-9])([A-Z])-?(\d{3})(?![0-9])")
DEFINED = re.compile(r"^- \*\*([A-Z]-\d{3})\*\*", re.M)
SOURCE_SUFFIXES = {".py", ".rs", ".go", ".java", ".js", ".mjs", ".ts", ".c", ".h"}


def lake_api_functions(header):
    text = re.sub(r"/\*.*?\*/", "", header.read_text(), flags=re.S)
    text = re.sub(r"^\s*#.*$", "", text, flags=re.M)
    return sorted(set(re.findall(r"LAKE_API\b[^;(]*?\b(lake_\w+)\s*\(", text)))


def files_of(binding):
    for path in sorted(binding.rglob("*")):
        relative = path.relative_to(binding).as_posix()
        if path.is_file() and not any(p.startswith(".") or p in ("node_modules", "target",
                                                                  "__pycache__", "build")
                                      for p in relative.split("/")):
            yield relative, path


def check_binding(binding, scenario_ids, functions):
    problems = []
    tested = set()
    declared_text = []
    for relative, path in files_of(binding):
        if path.suffix not in SOURCE_SUFFIXES:
            continue
        text = path.read_text(errors="replace")
        if "test" in relative.lower():
            tested |= {f"{letter}-{number}" for letter, number in ID.findall(text)}
        else:
            declared_text.append(text)
    pending = {}
    pending_file = binding / "CONFORMANCE-PENDING"
    if pending_file.exists():
        for line in pending_file.read_text().splitlines():
            if line.strip() and not line.startswith("#"):
                scenario, _, reason = line.partition(" ")
                pending[scenario] = reason.strip()
    for scenario in sorted(tested - scenario_ids):
        problems.append(f"a test names {scenario}, which CONFORMANCE.md does not define")
    for scenario in sorted(set(pending) - scenario_ids):
        problems.append(f"CONFORMANCE-PENDING lists {scenario}, which CONFORMANCE.md does not define")
    for scenario in sorted(set(pending) & tested):
        problems.append(f"{scenario} is tested and still listed in CONFORMANCE-PENDING")
    missing = sorted(scenario_ids - tested - set(pending))
    if missing:
        problems.append("no test names " + ", ".join(missing))
    words = set(re.findall(r"\blake_\w+\b", "\n".join(declared_text)))
    undeclared = [f for f in functions if f not in words]
    if undeclared:
        problems.append(f"{len(undeclared)} lake.h functions not declared: " +
                        ", ".join(undeclared))
    covered = len(scenario_ids & tested)
    return problems, covered, pending


def main(root):
    root = pathlib.Path(root)
    conformance = (root / "bindings/CONFORMANCE.md").read_text()
    scenario_ids = set(DEFINED.findall(conformance))
    functions = lake_api_functions(root / "include/lake.h")
    if not scenario_ids or not functions:
        print("check_bindings: found no scenario IDs or no LAKE_API functions")
        return 1
    failed = False
    bindings = [p for p in sorted((root / "bindings").iterdir())
                if p.is_dir() and p.name != "c"]
    for binding in bindings:
        problems, covered, pending = check_binding(binding, scenario_ids, functions)
        print(f"binding {binding.name}: {covered}/{len(scenario_ids)} scenarios tested, "
              f"{len(pending)} pending, {len(functions)} lake.h functions checked: "
              f"{'FAILED' if problems else 'ok'}")
        for scenario, reason in sorted(pending.items()):
            print(f"  pending {scenario}: {reason}")
        for problem in problems:
            print(f"  {problem}")
        failed |= bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parents[2]))
