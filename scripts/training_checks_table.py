#!/usr/bin/env python3
"""Tables of a training result set (results/README, the production checks):
detection per fault site and lifetime pooled over the other axes, false
alarms per 1000 clean steps, the rerun label's accuracy, and the smallest sets
of checks that together catch every fault any false-alarm-free check catches.

Every rate carries a 95 % Wilson score interval; a difference between two
checks carries Newcombe's hybrid score interval (method 10; the two rates are
over the same faults, for which the interval for independent samples is the
conservative one). Counts come from the set's per-trial outcome bits, so a
combination's detection is the union of its members' bits, trial by trial.
Written here (not a library) because Debian's python3 has no statsmodels;
the C++ side's Wilson interval is foundation/scoring/proportions.cpp.

usage: scripts/training_checks_table.py RESULT.json [--checks LABEL,...] [--where AXIS=VALUE]... [--combo A+B+...]... [--diff "A|B"]

--where keeps only the cells whose axis AXIS is VALUE (e.g. optimizer=distributed);
without it every table pools over the axes that are not site and lifetime.
"""
import itertools
import json
import math
import sys
from collections import defaultdict

from clean_sets import first_time

Z = 1.959963984540054


def wilson(k, n):
    if n == 0:
        return (math.nan, math.nan)
    p = k / n
    d = 1 + Z * Z / n
    c = (p + Z * Z / (2 * n)) / d
    h = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / d
    return (max(0.0, c - h), min(1.0, c + h))


def newcombe(k1, n1, k2, n2):
    p1, p2 = k1 / n1, k2 / n2
    l1, u1 = wilson(k1, n1)
    l2, u2 = wilson(k2, n2)
    d = p1 - p2
    return (d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2))


def rate(k, n):
    if n == 0:
        return "-"
    lo, hi = wilson(k, n)
    return f"{k}/{n} [{100 * lo:.0f}, {100 * hi:.0f}] %"


def bits(hexs, n):
    return [(int(hexs[t // 4], 16) >> (t % 4)) & 1 for t in range(n)]


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    r = json.load(open(sys.argv[1]))
    only = None
    if "--checks" in sys.argv:
        only = sys.argv[sys.argv.index("--checks") + 1].split(",")
    labels = [d["label"] for d in r["suite"]["detectors"]]
    if only:
        labels = [l for l in labels if l in only]
    where = [a.split("=", 1) for i, a in enumerate(sys.argv) if i > 0 and sys.argv[i - 1] == "--where"]
    for w in where:
        if len(w) != 2 or not any(w[0] in c["axes"] for c in r["cells"]):
            sys.exit(f"--where: expected AXIS=VALUE with an axis of {sys.argv[1]}'s cells; got {'='.join(w)}")
    groups = []  # (site, lifetime)
    # per (group, label): list of per-trial bits over the group's applied faulty trials
    hits = defaultdict(list)
    located = defaultdict(lambda: [0, 0])
    clean = defaultdict(lambda: [0, 0])  # flagged clean steps, clean steps
    attributed = defaultdict(lambda: [0, 0])
    # A check's clean steps over all groups, and a group's labelled clean
    # alarms, count each clean set once (scripts/clean_sets.py, issue 66).
    clean_seen, attributed_seen = set(), set()
    for c in r["cells"]:
        if c["skipped"] is not None or any(c["axes"].get(a) != v for a, v in where):
            continue
        g = (c["axes"]["site"], c["axes"].get("lifetime", "transient"))
        if g not in groups:
            groups.append(g)
        lab = c["detector"]["label"]
        f = c["faulty"]
        n = f["trials"] + f["skipped"]
        skip = set(f.get("skipped_trials", []))
        b = bits(f["outcomes"], n)
        hits[(g, lab)].append([b[t] for t in range(n) if t not in skip])
        located[(g, lab)][0] += f["localization"]["right"]
        located[(g, lab)][1] += f["localization"]["trials"]
        if first_time(clean_seen, lab, c, r):
            clean[lab][0] += c["clean"]["steps"]["flagged"]
            clean[lab][1] += c["clean"]["steps"]["trials"]
        wm = c["workload_metrics"]
        kinds = ("faulty", "clean") if first_time(attributed_seen, (g, lab), c, r) else ("faulty",)
        for kind in kinds:
            cnt = wm.get(f"{kind}.attribution_right.count")
            if cnt:
                attributed[(g, lab)][0] += round(wm[f"{kind}.attribution_right.mean"] * cnt)
                attributed[(g, lab)][1] += int(cnt)

    def flat(g, lab):
        return [x for cell in hits[(g, lab)] for x in cell]

    print("## Detection by site and lifetime (pooled over the other axes)\n")
    print("| check | " + " | ".join(f"{s} {l}" for s, l in groups) + " | false alarms per 1000 clean steps |")
    print("|---" * (len(groups) + 2) + "|")
    for lab in labels:
        row = []
        for g in groups:
            v = flat(g, lab)
            row.append(rate(sum(v), len(v)))
        k, n = clean[lab]
        lo, hi = wilson(k, n)
        row.append(f"{1000 * k / n:.1f} [{1000 * lo:.1f}, {1000 * hi:.1f}] ({k}/{n})" if n else "-")
        print(f"| {lab} | " + " | ".join(row) + " |")

    print("\n## Localization (detections that named rank 1)\n")
    print("| check | " + " | ".join(f"{s} {l}" for s, l in groups) + " |")
    print("|---" * (len(groups) + 1) + "|")
    for lab in labels:
        print(f"| {lab} | " + " | ".join(rate(*located[(g, lab)]) for g in groups) + " |")

    att = [lab for lab in labels if any(attributed[(g, lab)][1] for g in groups)]
    if att:
        print("\n## Rerun label against the injected lifetime (labelled alarms, faulty and clean)\n")
        print("| check | " + " | ".join(f"{s} {l}" for s, l in groups) + " |")
        print("|---" * (len(groups) + 1) + "|")
        for lab in att:
            print(f"| {lab} | " + " | ".join(rate(*attributed[(g, lab)]) for g in groups) + " |")

    quiet = [lab for lab in labels if clean[lab][1] and clean[lab][0] == 0]
    catchable = {g: [max(col) for col in zip(*[flat(g, lab) for lab in quiet])] for g in groups}
    print("\n## What the checks without a false alarm catch together, and the smallest sets that catch all of it\n")
    print("| site lifetime | caught by some check without a false alarm | faults |")
    print("|---|---|---|")
    for g in groups:
        v = catchable[g]
        print(f"| {g[0]} {g[1]} | {rate(sum(v), len(v))} | {len(v)} |")
    found = 0
    for size in (1, 2, 3):
        for combo in itertools.combinations(quiet, size):
            ok = True
            for g in groups:
                union = [max(col) for col in zip(*[flat(g, lab) for lab in combo])]
                if union != catchable[g]:
                    ok = False
                    break
            if ok:
                print(f"- {size}: " + " + ".join(combo))
                found += 1
        if found:
            break
    if not found:
        print("- no set of three or fewer catches all of it")

    for i, arg in enumerate(sys.argv):
        if arg != "--combo":
            continue
        combo = sys.argv[i + 1].split("+")
        cells = []
        for g in groups:
            union = [max(col) for col in zip(*[flat(g, lab) for lab in combo])]
            cells.append(rate(sum(union), len(union)))
        print(f"\n- {' + '.join(combo)}: " + "; ".join(f"{g[0]} {g[1]} {c}" for g, c in zip(groups, cells)))

    if "--diff" in sys.argv:
        a, b = sys.argv[sys.argv.index("--diff") + 1].split("|")
        print(f"\n## {a} minus {b} (Newcombe 95 % interval of the difference)\n")
        for g in groups:
            va, vb = flat(g, a), flat(g, b)
            if va:
                lo, hi = newcombe(sum(va), len(va), sum(vb), len(vb))
                print(f"- {g[0]} {g[1]}: {100 * (sum(va) - sum(vb)) / len(va):+.0f} points [{100 * lo:+.0f}, {100 * hi:+.0f}]")


if __name__ == "__main__":
    main()
