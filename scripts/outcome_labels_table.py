#!/usr/bin/env python3
"""Outcome-label tables of a training result set (METHODOLOGY.md "Outcome
labels"; schema 3's by_label), as results/notes print them: per cell, the
faulty episodes of each label with the share's 95 % Wilson interval; then,
per detector, its detections among each label's episodes with the Wilson
interval and the median latency in steps. `sdcbench show` prints the counts.

usage: scripts/outcome_labels_table.py RESULT.json [--detectors L1,L2]
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from training_checks_table import rate as share  # noqa: E402

LABELS = ["masked", "spike_and_recover", "spike_and_degrade", "silent_degradation", "gradual_drift", "non_finite"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("result")
    ap.add_argument("--detectors", default="")
    o = ap.parse_args()
    r = json.load(open(o.result))
    only = set(filter(None, o.detectors.split(",")))
    cells = [c for c in r["cells"] if c.get("skipped") is None and "by_label" in c]
    if not cells:
        sys.exit("no labelled cells in " + o.result)
    axes = sorted({k for c in cells for k in c["axes"] if len({x["axes"][k] for x in cells}) > 1})
    print("## Outcome labels per cell (share of the cell's faulty episodes, 95 % Wilson)\n")
    print("| " + " | ".join(axes + LABELS) + " |")
    print("|" + "---|" * (len(axes) + len(LABELS)))
    seen = set()
    for c in cells:
        if c["cell"] in seen:
            continue
        seen.add(c["cell"])
        n = sum(c["by_label"][l]["trials"] for l in LABELS)
        print("| " + " | ".join([c["axes"][a] for a in axes] + [share(c["by_label"][l]["trials"], n) for l in LABELS]) + " |")
    print("\n## Detection per label (detected / episodes with the label, 95 % Wilson; @ median latency in steps)\n")
    print("| " + " | ".join(axes + ["detector"] + LABELS) + " |")
    print("|" + "---|" * (len(axes) + 1 + len(LABELS)))
    for c in cells:
        label = c["detector"]["label"]
        if only and label not in only:
            continue
        row = [c["axes"][a] for a in axes] + [label]
        for l in LABELS:
            b = c["by_label"][l]
            text = share(b["detected"], b["trials"])
            if b["trials"] and b["latency_p50"] is not None:
                text += f" @{b['latency_p50']}"
            row.append(text)
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
