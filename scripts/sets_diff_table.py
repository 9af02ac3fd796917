#!/usr/bin/env python3
"""Two result sets side by side, cell by cell, when they differ in an axis
(e.g. the training configuration: the small model's Table 1 beside the medium
preset's): cells are matched on every axis but the ignored ones, and each row
gives both detection rates with 95 % Wilson intervals and B - A with
Newcombe's hybrid score interval (independent samples: the two sets' faults
are different draws). False-alarm rates the same way with --clean, one row
per clean set (cells that differ only in fault axes ran the same clean
episodes: issue 66).
`sdcbench compare` matches cells by their full key, so it cannot pair them.

usage: scripts/sets_diff_table.py A.json B.json --ignore-axis config [--detectors L1,L2] [--clean]
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clean_sets import clean_set, fault_axes  # noqa: E402
from training_checks_table import newcombe, rate  # noqa: E402


def cells_of(path, ignored, detectors, clean=False):
    """(axes but the ignored ones, label) -> cell; with `clean`, a cell with a
    clean set is keyed without the fault axes, so its set is one row."""
    r = json.load(open(path))
    out = {}
    for c in r["cells"]:
        if c.get("skipped") is not None:
            continue
        label = c["detector"]["label"]
        if detectors and label not in detectors:
            continue
        dropped = ignored | set(fault_axes(r)) if clean and clean_set(c, r) is not None else ignored
        axes = tuple((k, v) for k, v in sorted(c["axes"].items()) if k not in dropped)
        out[(axes, label)] = c
    return r, out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--ignore-axis", action="append", default=[])
    ap.add_argument("--detectors", default="")
    ap.add_argument("--clean", action="store_true", help="false alarms instead of detection")
    o = ap.parse_args()
    detectors = set(filter(None, o.detectors.split(",")))
    ra, a = cells_of(o.a, set(o.ignore_axis), detectors, o.clean)
    rb, b = cells_of(o.b, set(o.ignore_axis), detectors, o.clean)
    block, hit = ("clean", "flagged") if o.clean else ("faulty", "detected")
    varying = sorted({k for (axes, _) in a for k, v in axes if len({dict(x[0]).get(k) for x in a}) > 1})
    print(f"A = {o.a} ({ra['provenance'].get('cpu', '?')}), B = {o.b} ({rb['provenance'].get('cpu', '?')}); "
          f"{block} {hit}, 95 % Wilson; B - A with Newcombe's interval")
    print("| " + " | ".join(varying + ["detector", "A", "B", "B - A [95 %]"]) + " |")
    print("|" + "---|" * (len(varying) + 4))
    matched = 0
    for key in sorted(a, key=lambda k: (k[0], k[1])):
        if key not in b:
            continue
        matched += 1
        fa, fb = a[key][block], b[key][block]
        ka, na, kb, nb = fa[hit], fa["trials"], fb[hit], fb["trials"]
        if na and nb:
            d = kb / nb - ka / na
            lo, hi = newcombe(kb, nb, ka, na)
            diff = f"{100 * d:+.0f} [{100 * lo:+.0f}, {100 * hi:+.0f}]"
        else:
            diff = "-"
        axes = dict(key[0])
        print("| " + " | ".join([axes.get(k, "-") for k in varying] + [key[1], rate(ka, na), rate(kb, nb), diff]) + " |")
    if matched == 0:
        sys.exit("no cells match: check --ignore-axis")


if __name__ == "__main__":
    main()
