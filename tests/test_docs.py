"""The project explains itself from its own tree (docs/architecture.md, rule 17).

- No file in the tree cites a plan or a format kept outside the repository: the
  comments and docs point at ``docs/`` instead, so a clone has all it needs.
- Every path that ``docs/architecture.md`` and ``docs/formats/game-record.md``
  name in backticks exists (written from the repository's root; a span with a
  placeholder such as ``<name>`` or ``*`` is a pattern, not a path), every test
  they name as ``tests/<file>.py::test_<name>`` is defined in that file, and
  every link of theirs to a file leads to one.
- A comment or doc that cites the architecture page by rule number or section
  (``docs/architecture.md, rule 9``; ``docs/architecture.md "Layout"``) cites one
  the page has.
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
ARCHITECTURE = "docs/architecture.md"
CITED_RULE = re.compile(r"docs/architecture\.md,?\s+rule\s+(\d+)")
CITED_SECTION = re.compile(r'docs/architecture\.md\s+"([^"]+)"')


def tree_texts(root: Path) -> Iterator[tuple[Path, str]]:
    """Every text file of the tree and its text, outside hidden folders and caches."""
    for path in sorted(root.rglob("*")):
        parts = path.relative_to(root).parts
        if any(p.startswith(".") or p in SKIPPED_FOLDERS or p.endswith(".egg-info")
               for p in parts[:-1]) or not path.is_file():
            continue
        try:
            yield path, path.read_text()
        except (UnicodeDecodeError, OSError):
            continue  # not text


def outside_citations(root: Path) -> list[str]:
    found = []
    for path, text in tree_texts(root):
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


def wrong_citations(root: Path) -> list[str]:
    """Citations of the architecture page's rules or sections that it does not have."""
    page = (root / ARCHITECTURE).read_text()
    rules = set(re.findall(r"^\*\*(\d+)\. ", page, re.MULTILINE))
    sections = set(re.findall(r"^#+ (.+)$", page, re.MULTILINE))
    found = []
    for path, text in tree_texts(root):
        where = path.relative_to(root)
        found += [f"{where}: rule {n}" for n in CITED_RULE.findall(text) if n not in rules]
        found += [f"{where}: {s!r}" for s in CITED_SECTION.findall(text) if s not in sections]
    return found


def test_no_file_cites_a_document_outside_the_repository() -> None:
    assert outside_citations(ROOT) == []


def test_every_rule_and_section_cited_is_on_the_architecture_page() -> None:
    assert wrong_citations(ROOT) == []


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


@pytest.mark.parametrize(("line", "wrong"), [
    ("(docs/architecture.md, rule " + "18)", "rule 18"),  # split: this file cites neither
    ('docs/architecture.md ' + '"Floor plan"', "'Floor plan'"),
])
def test_a_rule_or_section_the_page_lacks_is_named(tmp_path: Path, line: str,
                                                    wrong: str) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "architecture.md").write_text(
        "# Title\n\n## Layout\n\n**17. The project explains itself.**\n")
    (tmp_path / "x.py").write_text(
        f'"""{line}; (docs/architecture.md, rule 17); docs/architecture.md "Layout"."""\n')
    assert wrong_citations(tmp_path) == [f"x.py: {wrong}"]
