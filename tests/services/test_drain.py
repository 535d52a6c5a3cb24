"""A service stopped by SIGTERM drains: ``/readyz`` says 503 at once (``accepting``
false) while it still serves, for ``SPADES_DRAIN_SECONDS``; then it stops. SIGINT, a
person at ``spades dev``, stops it at once. Each against a real process of the service
on the suite's Postgres and NATS."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path

import httpx
import pytest

from tests.services.lobby.harness import lobby_env, start


def _lines(log: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]


def test_sigterm_says_not_ready_first_serves_on_then_stops(
        tmp_path: Path, database_url: str, nats_url: str, nats_prefix: str) -> None:
    svc = start("ratings", tmp_path / "ratings-drain.log", SPADES_DRAIN_SECONDS="3",
                **lobby_env(database_url, nats_url, f"{nats_prefix}dr"))
    try:
        assert httpx.get(f"{svc.url}/readyz", timeout=5).status_code == 200
        sent = time.monotonic()
        svc.proc.send_signal(signal.SIGTERM)
        deadline = sent + 2.5
        while True:
            ready = httpx.get(f"{svc.url}/readyz", timeout=5)
            if ready.status_code == 503:
                break
            assert time.monotonic() < deadline, "readiness never said 503 while draining"
            time.sleep(0.05)
        assert ready.json()["checks"]["accepting"] is False
        assert ready.json()["checks"]["postgres"] is True  # only the drain says no
        # Still serving while load balancers take it out: alive, and answering.
        assert httpx.get(f"{svc.url}/healthz", timeout=5).status_code == 200
        assert svc.proc.poll() is None
        svc.proc.wait(30)
        assert time.monotonic() - sent >= 3
        assert svc.proc.returncode == 0
        events = [line["event"] for line in _lines(svc.log)]
        assert events.index("draining") < events.index("drained") < events.index("stopped")
    finally:
        svc.stop()


def test_sigint_stops_at_once(tmp_path: Path, database_url: str, nats_url: str,
                              nats_prefix: str) -> None:
    svc = start("ratings", tmp_path / "ratings-int.log", SPADES_DRAIN_SECONDS="30",
                **lobby_env(database_url, nats_url, f"{nats_prefix}di"))
    try:
        sent = time.monotonic()
        svc.proc.send_signal(signal.SIGINT)
        svc.proc.wait(25)
        assert time.monotonic() - sent < 25
        assert "drained" not in [line["event"] for line in _lines(svc.log)]
    finally:
        svc.stop()


@pytest.mark.parametrize("value", ["-1", "soon"])
def test_a_bad_drain_setting_is_refused_at_start(tmp_path: Path, database_url: str,
                                                 nats_url: str, nats_prefix: str,
                                                 value: str) -> None:
    with pytest.raises(AssertionError, match=r"SPADES_DRAIN_SECONDS|drain_seconds"):
        start("ratings", tmp_path / f"ratings-bad{value}.log", SPADES_DRAIN_SECONDS=value,
              **lobby_env(database_url, nats_url, f"{nats_prefix}db"))
