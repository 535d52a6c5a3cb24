"""One version number, pyproject.toml's: the installed package's metadata, `spades
--version` and the changelog say it (the services' `/healthz`, status and OpenAPI
document are checked where they run: tests/services/test_dev.py,
tests/services/lobby/test_http.py, tests/release/test_wheel.py)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from services.cli import main
from services.platform import version

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def test_the_package_metadata_says_pyproject_s_version() -> None:
    assert version() == PYPROJECT


def test_spades_version_prints_it(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out == f"spades {PYPROJECT}\n"


def test_the_changelog_says_this_version_first_and_the_older_ones_after() -> None:
    headings = re.findall(r"^## (.+)$", (ROOT / "CHANGELOG.md").read_text(), re.M)
    assert headings and headings[0] == PYPROJECT
    numbers = [tuple(int(part) for part in h.split(".")) for h in headings]
    assert numbers == sorted(numbers, reverse=True) and len(set(numbers)) == len(numbers)
