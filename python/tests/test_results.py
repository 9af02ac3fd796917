"""Result sets from Python: load (any version, as version 3), validate,
compare on the same faults, and a flat table of cells."""
import json

import pytest

import sdcbench


def test_a_committed_set_loads_validates_and_flattens(source_dir):
    path = source_dir / "results" / "quick-full.json"
    rs = sdcbench.load(path)
    assert rs["schema"] == "sdcbench.result/4" and sdcbench.validate(path) == []
    rows = sdcbench.cells_table(rs)
    assert len(rows) == len(rs["cells"])
    first = rows[0]
    assert {"key", "detector", "axes.dtype", "faulty.trials", "faulty.detected", "clean.trials"} <= set(first)
    assert first["faulty.detected"] == rs["cells"][0]["faulty"]["detected"]


def test_validate_names_the_problem_of_a_broken_set(source_dir, tmp_path):
    rs = json.loads((source_dir / "results" / "quick-full.json").read_text())
    rs["cells"][0]["faulty"]["detected"] = rs["cells"][0]["faulty"]["trials"] + 1
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(rs))
    problems = sdcbench.validate(bad)
    assert problems and any("/cells/0" in p for p in problems)
    with pytest.raises(ValueError, match="bad.json"):
        sdcbench.load(bad)


def test_compare_gives_the_cli_table(cli, source_dir):
    a = source_dir / "results" / "quick-full.json"
    table, rows = sdcbench.compare(a, a)
    assert table == cli("compare", a, a).rstrip("\n") or table in cli("compare", a, a)
    assert rows and all(r.get("discordant", 0) == 0 for r in rows if isinstance(r, dict))
