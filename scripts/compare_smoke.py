#!/usr/bin/env python3
"""Compares two result sets cell for cell (a version 1 file against a version
2 file of the same suite, or two of one version): outcome counts, outcome
bits, significance bands and the detector metrics both carry. Prints each
difference; exits 1 if any. Used when a change must leave the numbers alone."""
import json, sys

V1_MOVED = {"fault_err_ulps_median", "fault_err_rel_median", "fault_err_over_noise_median"}
JUDGED = (".residual_ulps.", ".corrected_within_envelope.", ".located_correctly.", ".rsum_err_rel_max.",
          ".csum_err_rel_max.", ".false_alarm_from_rsum.", ".delta_crit.", ".position.", ".delta.")

def detector_metrics(m):
    return {k: v for k, v in m.items() if k not in V1_MOVED and not any(j in k for j in JUDGED)}

def main(a_path, b_path):
    a, b = json.load(open(a_path)), json.load(open(b_path))
    cb = {(c["key"], c["detector"]["label"]): c for c in b["cells"]}
    diffs = 0
    for c in a["cells"]:
        k = (c["key"], c["detector"]["label"])
        d = cb.get(k)
        if d is None:
            print("missing in B:", k); diffs += 1; continue
        if c["skipped"] != d["skipped"] and (c["skipped"] is None or d["skipped"] is None):
            print("skipped differs:", k); diffs += 1; continue
        if c["skipped"] is not None:
            continue
        for blk, fields in (("faulty", ("trials", "detected", "skipped", "outcomes")), ("clean", ("trials", "flagged", "outcomes"))):
            for f in fields:
                if c[blk][f] != d[blk][f]:
                    print(f"{k}: {blk}.{f} {c[blk][f]} != {d[blk][f]}"); diffs += 1
        if c["by_significance"] != d["by_significance"]:
            print(f"{k}: by_significance differs"); diffs += 1
        ma, mb = detector_metrics(c["metrics"]), detector_metrics(d["metrics"])
        for name in sorted(set(ma) & set(mb)):
            if ma[name] != mb[name]:
                print(f"{k}: metric {name} {ma[name]} != {mb[name]}"); diffs += 1
        only = sorted(set(ma) ^ set(mb))
        if only:
            print(f"{k}: metrics in one file only: {only[:6]}"); diffs += 1
    print(f"{len(a['cells'])} cells compared, {diffs} differences")
    return 1 if diffs else 0

if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
