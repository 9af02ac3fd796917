"""pytest fixtures: the sdcbench program of the same build (the CLI is the
reference the module's results are pinned to) and the checkout's files."""
import json
import os
import pathlib
import subprocess

import pytest


@pytest.fixture(scope="session")
def cli():
    binary = os.environ.get("SDCBENCH_BINARY")
    if not binary:
        pytest.fail("SDCBENCH_BINARY is not set: run these tests through ctest (test_python)")

    def run(*args):
        p = subprocess.run([binary, *map(str, args)], capture_output=True, text=True)
        assert p.returncode == 0, p.stdout + p.stderr
        return p.stdout

    run.json = lambda *args: json.loads(run(*args))
    return run


@pytest.fixture(scope="session")
def source_dir():
    return pathlib.Path(os.environ["SDCBENCH_SOURCE_DIR"])
