#!/usr/bin/env python3
"""ctest test_filters: every GoogleTest case of the test programs runs under
exactly one ctest test (HACKING.md, "Tests").

The ctest tests run a few shared programs with a --gtest_filter that
cmake/sdcbench_add_test.cmake makes from the TEST lines of their files; a case
that the filter misses (a TEST written in an unusual way, say) would never
run, and one matched twice would run twice. For each program that this build
has, the cases it lists must equal the union of the cases its ctest tests
select, each selected once, and every ctest test must select at least one.

Usage: check_filters.py BUILD_DIR
"""
import collections
import json
import os
import subprocess
import sys


def listed(cmd):
    """The cases `cmd --gtest_list_tests` prints, as Suite.Name."""
    out = subprocess.run(cmd + ["--gtest_list_tests"], check=True, capture_output=True, text=True).stdout
    cases, suite = [], None
    for line in out.splitlines():
        if not line.strip():
            continue
        if not line.startswith(" "):
            suite = line.split("#")[0].strip()
        else:
            cases.append(suite + line.split("#")[0].strip())
    return cases


def main(build):
    shown = subprocess.run(["ctest", "--show-only=json-v1"], cwd=build, check=True, capture_output=True, text=True)
    by_program = collections.defaultdict(list)
    for t in json.loads(shown.stdout)["tests"]:
        cmd = t.get("command") or []
        if len(cmd) >= 2 and any(a.startswith("--gtest_filter=") for a in cmd[1:]):
            by_program[cmd[0]].append((t["name"], cmd))
    if not by_program:
        print(f"{build}: no ctest test runs a GoogleTest program with --gtest_filter")
        return 1
    failures = 0
    for program, tests in sorted(by_program.items()):
        if not os.path.exists(program):
            print(f"{os.path.basename(program)}: not built in this build (left out of `all`), not checked")
            continue
        every = listed([program])
        seen, excluded = collections.Counter(), set()
        for name, cmd in tests:
            cases = listed(cmd)
            if not cases:
                print(f"{name}: its filter selects no case of {os.path.basename(program)}")
                failures += 1
            seen.update(cases)
            # EXCLUDE (the part after '-'): cases a test leaves out on purpose
            flt = next(a for a in cmd[1:] if a.startswith("--gtest_filter="))
            if "-" in flt:
                positive = [cmd[0], flt.split("-", 1)[0]] + [a for a in cmd[1:] if a != flt]
                excluded.update((c, name) for c in set(listed(positive)) - set(cases))
        for c, name in sorted(excluded):
            if seen[c] == 0:
                print(f"{name}: leaves out {c} (EXCLUDE)")
        left_out = {c for c, _ in excluded}
        never = [c for c in every if seen[c] == 0 and c not in left_out]
        twice = [c for c, n in seen.items() if n > 1]
        for c in never:
            print(f"{os.path.basename(program)}: {c} is run by no ctest test")
        for c in twice:
            print(f"{os.path.basename(program)}: {c} is run by {seen[c]} ctest tests")
        failures += len(never) + len(twice)
        print(f"{os.path.basename(program)}: {len(every)} cases, {len(tests)} ctest tests"
              + ("" if never or twice else ", each case run once"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
