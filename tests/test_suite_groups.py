"""The workers of ``make test`` run each group of tests together (``tests/conftest.py``
names the groups: a file, the lobby's package, the shared platform's files), so a
module's or the platform's servers start once on one worker rather than once on every
worker that happens to draw one of its tests. xdist keeps a group by writing its name
into each test's id; pytest 9.2 took the id from elsewhere, the names went unread, and
every test was dealt out alone (pytest is pinned below it for that)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_a_worker_runs_its_tests_by_the_group_they_were_given(
        request: pytest.FixtureRequest) -> None:
    if "PYTEST_XDIST_WORKER" in os.environ:
        assert request.node.nodeid.endswith("@test_suite_groups.py"), request.node.nodeid
        return
    # Run without workers (a file named, or -n 0): the same test on one worker.
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-rA", "-n", "1", "-p", "no:cacheprovider",
         f"{Path(__file__).relative_to(ROOT)}::{request.node.name}"],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and "PASSED" in done.stdout, done.stdout + done.stderr
