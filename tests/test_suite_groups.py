"""The workers of ``make test`` run each group of tests together (``tests/conftest.py``
names the groups: a file, the lobby's package, the shared platform's files), so a
module's or the platform's servers start once on one worker rather than once on every
worker that happens to draw one of its tests. xdist keeps a group by writing its name
into each test's id; pytest 9.2 took the id from elsewhere, the names went unread, and
every test was dealt out alone (pytest is pinned below it for that)."""

from __future__ import annotations

import os

import pytest


def test_a_worker_runs_its_tests_by_the_group_they_were_given(
        request: pytest.FixtureRequest) -> None:
    if "PYTEST_XDIST_WORKER" not in os.environ:
        pytest.skip("run without workers: no groups to keep")
    assert request.node.nodeid.endswith("@test_suite_groups.py"), request.node.nodeid
