"""The docs keep their shape (issue 68): METHODOLOGY holds the method and no
run at a commit, within 60,000 bytes; HACKING's and results/README's table
cells stay short; every repository path the docs name exists. Needs no
build: `python3 -m pytest scripts/tests`."""
import fnmatch
import pathlib
import re
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def tracked_files():
    """The repository's files as git knows them (a source tree without git: the files on disk)."""
    try:
        out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
        return [line for line in out.splitlines() if line]
    except (OSError, subprocess.CalledProcessError):
        return [str(p.relative_to(ROOT)) for p in ROOT.rglob("*") if p.is_file() and not p.name.startswith(".")
                and not any(part.startswith(("build", ".")) or part == "node_modules" for part in p.relative_to(ROOT).parts)]


FILES = tracked_files()
FILE_SET = set(FILES)
DIRS = {str(pathlib.PurePosixPath(f).parents[i]) for f in FILES for i in range(len(pathlib.PurePosixPath(f).parents) - 1)}
TOP_LEVEL = {f.split("/", 1)[0] for f in FILES}

DOCS = ["README.md", "HACKING.md", "METHODOLOGY.md", "results/README.md"] + sorted(
    f for f in FILES if f.endswith("/CONFORMANCE.md"))


def read(rel):
    return (ROOT / rel).read_text(encoding="utf-8")


def table_cells(text):
    """Every cell of every markdown table row, with its line number; fenced code is skipped."""
    in_fence = False
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
            continue
        stripped = line.strip()
        if in_fence or not stripped.startswith("|"):
            continue
        if re.fullmatch(r"\|?[\s:|-]+\|?", stripped):  # the |---|---| separator
            continue
        # split on pipes that are not escaped (\|) and not inside a `code span`
        cells, cell, in_code, i = [], "", False, 0
        body = stripped.strip("|") if not stripped.endswith("\\|") else stripped[1:]
        while i < len(body):
            ch = body[i]
            if ch == "\\" and i + 1 < len(body):
                cell += body[i:i + 2]
                i += 2
                continue
            if ch == "`":
                in_code = not in_code
            if ch == "|" and not in_code:
                cells.append(cell)
                cell = ""
            else:
                cell += ch
            i += 1
        cells.append(cell)
        for c in cells:
            yield number, c.strip()


def long_cells(rel, limit):
    return [f"{rel}:{n}: {len(c)} characters: {c[:80]}..." for n, c in table_cells(read(rel)) if len(c) >= limit]


def test_methodology_is_under_60_kb():
    size = len(read("METHODOLOGY.md").encode("utf-8"))
    assert size < 60_000, f"METHODOLOGY.md is {size} bytes: measurements go to results/notes/, conformance to detectors/*/CONFORMANCE.md"


def test_hacking_table_cells_are_short():
    assert long_cells("HACKING.md", 400) == []


def test_results_readme_table_cells_are_short():
    assert long_cells("results/README.md", 700) == []


# A commit as git abbreviates it: 7 to 40 hex digits with at least one digit
# and one letter, as a word of its own (so a paper's file name such as
# 000_60f7924e74842bcb.txt, joined by '_', is not one).
COMMIT = re.compile(r"(?<![\w.-])(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}(?![\w-])")


def methodology_body():
    """METHODOLOGY's lines outside headings and fenced code, with their numbers."""
    in_fence = False
    for number, line in enumerate(read("METHODOLOGY.md").splitlines(), 1):
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
            continue
        if in_fence or line.startswith("#"):
            continue
        yield number, line


def test_methodology_records_no_run_at_a_commit():
    # The method holds at every commit; runs and measurements at a commit go to
    # results/notes/, an original's pinned commit to its CONFORMANCE.md (whose
    # section titles name it). Headings are exempt.
    runs = [f"METHODOLOGY.md:{n}: {line.strip()}" for n, line in methodology_body()
            if re.search(r"\bat [0-9a-f]{7,40}\b", line) or COMMIT.search(line)]
    assert runs == []


def test_commit_rule_catches_a_run_note():
    assert COMMIT.search("measured at 4aeeac5 on an AMD EPYC")
    assert COMMIT.search("(d98e8a64)")
    assert not COMMIT.search("000_60f7924e74842bcb.txt eq. (1)")
    assert not COMMIT.search("a deadbeef sentence")  # letters only: not a commit
    assert not COMMIT.search("1234567 trials")


# The extensions the repository's own files have: a path with another one
# (FBGEMM's `bench/...Benchmark.cc`) is an original's, not ours.
KNOWN_EXTENSIONS = tuple(sorted({pathlib.PurePosixPath(f).suffix for f in FILES if pathlib.PurePosixPath(f).suffix}))


def referenced_paths(rel):
    """(line, target, kind) for each relative link and each backticked repository path of a doc."""
    text = read(rel)
    base = pathlib.PurePosixPath(rel).parent
    for number, line in enumerate(text.splitlines(), 1):
        for target in re.findall(r"\]\(([^)\s]+)\)", line):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            target = target.split("#", 1)[0]
            path = pathlib.PurePosixPath(base, target)
            yield number, normalize(str(path)), "link"
        for span in re.findall(r"`([^`\s]+)`", line):
            span = span.rstrip(".,;:)")
            if "/" not in span or span.startswith(("/", "../", "http")) or re.search(r"[<>${}\[\]=]", span):
                continue
            candidate = span.split("#", 1)[0].split(":", 1)[0]
            first = candidate.split("/", 1)[0]
            local = pathlib.PurePosixPath(base, first)
            if first not in TOP_LEVEL and str(local) not in DIRS:
                continue  # build/, out/, another project's path (an original's file)
            if "*" in candidate or candidate.endswith("/") or candidate.endswith(KNOWN_EXTENSIONS):
                yield number, candidate, "path"


def normalize(path):
    parts = []
    for part in path.split("/"):
        if part == "..":
            if parts:
                parts.pop()
        elif part not in ("", "."):
            parts.append(part)
    return "/".join(parts)


def exists(path):
    path = path.rstrip("/")
    if "*" in path:
        return any(fnmatch.fnmatch(f, path) or fnmatch.fnmatch(f, path + "/*") for f in FILES)
    return path in FILE_SET or path in DIRS or path == ""


DOC_NAMES = {"README", "HACKING", "METHODOLOGY", "CONFORMANCE", "CMakeLists"}


def placeholder(path):
    """A path pattern of the docs' own (`suites/NAME.json`, `workloads/NAME/`), not a file."""
    return any(seg.isupper() and seg not in DOC_NAMES for seg in re.split(r"[/_.-]", path) if len(seg) > 1)


def found(rel, target, kind):
    """A link resolves from the doc's folder; a backticked path from the root, or from the doc's folder
    (results/README names its files relative to results/)."""
    if kind == "link":
        return exists(target)
    base = str(pathlib.PurePosixPath(rel).parent)
    return exists(target) or (base != "." and exists(normalize(f"{base}/{target}"))) or placeholder(target)


@pytest.mark.parametrize("rel", DOCS)
def test_paths_named_in_the_docs_exist(rel):
    missing = [f"{rel}:{n}: {target} ({kind})" for n, target, kind in referenced_paths(rel) if not found(rel, target, kind)]
    assert missing == [], "paths not in `git ls-files` (moved or misspelled):\n" + "\n".join(missing)


def test_path_rule_catches_a_moved_file():
    assert exists("detectors/gemm/")
    assert exists("detectors/gemm/abft_checksums.*")
    assert not exists("detectors/abft_checksums.*")
    assert not exists("workloads/training/trainer.hpp")
    assert placeholder("suites/NAME.json") and not placeholder("detectors/gemm/CONFORMANCE.md")
