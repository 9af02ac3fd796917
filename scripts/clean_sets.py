"""Which clean episodes a result set's records share (schema 4's `clean_set`,
issue 66), for the scripts beside this file.

The cells of a fork (equal in every axis but the fault axes) run the same
clean episodes, so their `clean` blocks are the same episodes counted again:
a pooled count counts each clean set once (issue 66). A record whose clean
set is None drew its clean trials itself and is always counted.
"""

# Version 3 had no `clean_set`: a training cell's clean episodes were the
# fork's, named by its axes without these (schema 4's suite.fault_axes).
TRAINING_FAULT_AXES = ("site", "fault", "bit", "element", "count", "when", "rank", "lifetime", "gemm_q", "faults_per_twin")


def fault_axes(result_set):
    """The axes the cells of one clean set differ in (suite.fault_axes; a
    version 3 training set: TRAINING_FAULT_AXES, any other: none)."""
    if "fault_axes" in result_set["suite"]:
        return list(result_set["suite"]["fault_axes"])
    return list(TRAINING_FAULT_AXES) if result_set["suite"].get("workload") == "training" else []


def clean_set(record, result_set):
    """The id of the clean episodes a cell or recording shares with others
    (None: drawn for this cell alone). Version 3: derived from the axes."""
    if "clean_set" in record:
        return record["clean_set"]
    if result_set["suite"].get("workload") != "training" or record.get("skipped") is not None:
        return None
    return ";".join(f"{k}={v}" for k, v in sorted(record["axes"].items()) if k not in TRAINING_FAULT_AXES)


def first_time(seen, pool, record, result_set):
    """Whether `record`'s clean counts go into `pool` (a detector label, or a
    (group, label)): the first time its clean set is seen there, or always
    when it has none. `seen` is the set of pairs already counted; updated."""
    cs = clean_set(record, result_set)
    if cs is None:
        return True
    if (pool, cs) in seen:
        return False
    seen.add((pool, cs))
    return True
