"""The project explains itself from its own tree (docs/architecture.md, rule 17).

- No file in the tree cites a plan or a format kept outside the repository: the
  comments and docs point at ``docs/`` instead, so a clone has all it needs.
- Every path that ``docs/architecture.md`` and ``docs/formats/game-record.md``
  name in backticks exists (written from the repository's root; a span with a
  placeholder such as ``<name>`` or ``*`` is a pattern, not a path), every test
  they name as ``tests/<file>.py::test_<name>`` is defined in that file, and
  every link of theirs to a file leads to one.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHECKED_DOCS = ("docs/architecture.md", "docs/formats/game-record.md")
# Citations of what lives outside the repository: the plan that the architecture page
# replaced, cited by its name or by rule number, and the folder of shared files beside
# the repository. Written with a character class so that this file does not cite them.
OUTSIDE = re.compile(r"\bDESIG[N]\b|(?<![\w.-])share[d]/")
SKIPPED_FOLDERS = {"__pycache__", "node_modules"}  # and every hidden folder (.venv, .git)
SPAN = re.compile(r"`([^`\s]+)`")
LINK = re.compile(r"\]\(([^)\s]+)\)")
TEST_NAME = re.compile(r"^(tests/[\w/]+\.py)::(\w+)$")


def tree_files(root: Path) -> Iterator[Path]:
    """Every text file of the tree, outside hidden folders and caches."""
    for path in sorted(root.rglob("*")):
        parts = path.relative_to(root).parts
        if any(p.startswith(".") or p in SKIPPED_FOLDERS or p.endswith(".egg-info")
               for p in parts[:-1]):
            continue
        if path.is_file():
            yield path


def outside_citations(root: Path) -> list[str]:
    found = []
    for path in tree_files(root):
        try:
            text = path.read_text()
        except (UnicodeDecodeError, OSError):
            continue  # not text
        for n, line in enumerate(text.splitlines(), 1):
            if OUTSIDE.search(line):
                found.append(f"{path.relative_to(root)}:{n}: {line.strip()[:100]}")
    return found


def named_paths(text: str) -> Iterator[str]:
    """The paths a doc names in backticks: spans with a '/' that are not URL paths,
    subjects or patterns."""
    for span in SPAN.findall(text):
        if "/" in span and not span.startswith("/") and not re.search(r"[<>*{}$]", span):
            yield span.rstrip(".,:;")


def missing(root: Path, doc: str) -> list[str]:
    """The paths, tests and links ``doc`` names that do not exist."""
    path = root / doc
    text = path.read_text()
    gone = []
    for name in named_paths(text):
        test = TEST_NAME.match(name)
        file = test.group(1) if test else name.split("::")[0]
        if not (root / file).exists():
            gone.append(f"{doc}: `{name}`: no such file or folder")
        elif test and not re.search(rf"^(async )?def {test.group(2)}\(",
                                    (root / file).read_text(), re.MULTILINE):
            gone.append(f"{doc}: `{name}`: no such test in {file}")
    for target in LINK.findall(text):
        target = target.split("#")[0]
        if target and "://" not in target and not (path.parent / target).exists():
            gone.append(f"{doc}: link ({target}): no such file")
    return gone


def test_no_file_cites_a_document_outside_the_repository() -> None:
    assert outside_citations(ROOT) == []


@pytest.mark.parametrize("doc", CHECKED_DOCS)
def test_every_path_and_test_the_doc_names_exists(doc: str) -> None:
    assert missing(ROOT, doc) == []


@pytest.mark.parametrize("line", [
    "# the actor is the one writer (" + "DESIG" + "N" + " rule 9)",
    '"""See ``' + "shared" + '/formats/game-record.md``."""',
    "- the plan: " + "DESIG" + "N" + ".md",
])
def test_a_citation_outside_the_repository_is_found(tmp_path: Path, line: str) -> None:
    (tmp_path / "engine").mkdir()
    (tmp_path / "engine" / "x.py").write_text(f"{line}\n")
    (tmp_path / ".venv").mkdir()  # a hidden folder is not the project's
    (tmp_path / ".venv" / "y.py").write_text(f"{line}\n")
    assert outside_citations(tmp_path) == [f"engine/x.py:1: {line.strip()}"]


@pytest.mark.parametrize(("text", "problem"), [
    ("`services/lobby/nowhere.py` holds it", "no such file"),
    ("`tests/test_x.py::test_what_is_not_there`", "no such test"),
    ("`tests/test_y.py::test_gone`", "no such file"),
    ("[the rules](rules_gone.md)", "no such file"),
])
def test_a_path_or_test_that_is_not_there_is_named(tmp_path: Path, text: str,
                                                   problem: str) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text("def test_there() -> None:\n    pass\n")
    (tmp_path / "docs" / "a.md").write_text(
        f"{text}\n`tests/test_x.py::test_there`, `/v1/ws`, `services/<name>/`.\n")
    found = missing(tmp_path, "docs/a.md")
    assert len(found) == 1 and problem in found[0]
