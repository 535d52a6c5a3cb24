"""A tournament round is followed from the results that completed it to the next round's
games, across the processes (the tournaments service, two lobby copies, a game worker),
exported the way a deployment exports it (``OTEL_EXPORTER_OTLP_ENDPOINT`` at a
collector of the test's own).

Four bot teams play a Swiss tournament of two rounds, back to back. The recording of
round 1's last results (``results recorded``, the child of a game's ``tournament
result``) must be the parent of round 2's ``pair round``, whose ``call match`` spans
each ask the lobby (``request`` -> ``open_match``), where the match's game is started
(``start game`` -> ``request`` -> the worker's ``create``): one trace, parent by
parent, and the game worker's lines of the new games carry its id."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest

from tests.e2e.conftest import Platform
from tests.e2e.otlp import Collector, Got
from tests.e2e.test_tournament_run import FAST, bot_cup, played_out
from tests.services.lobby.harness import Service, lobby_env, start
from tests.services.lobby.test_tournaments import organizer
from tests.waiting import until


@pytest.fixture(scope="module")
async def traced(collector: Collector, tmp_path_factory: pytest.TempPathFactory,
                 make_database: Callable[[], Awaitable[str]], nats_url: str,
                 nats_prefix: str) -> AsyncIterator[tuple[Platform, Service, str]]:
    """A platform of its own (its database: no other test's timers fire here) with a
    tournaments service: (the platform, that service, its database)."""
    logs = tmp_path_factory.mktemp("traced-round")
    database_url = await make_database()
    env = lobby_env(database_url, nats_url, f"{nats_prefix}tt{uuid.uuid4().hex[:4]}",
                    OTEL_EXPORTER_OTLP_ENDPOINT=collector.url, OTEL_BSP_SCHEDULE_DELAY="100")
    started: list[Service] = []
    try:
        started.append(start("game", logs / "game-r.log", SPADES_BOT_THINK_MS="0", **env))
        started += [start("lobby", logs / f"lobby-r{i}.log", **env) for i in range(2)]
        started.append(start("tournaments", logs / "tournaments-r.log",
                             SPADES_TIMER_POLL_SECONDS="0.2", **env))
        yield Platform(started[1:3], started[:1], logs), started[3], database_url
    finally:
        for svc in reversed(started):
            svc.stop()


def child(collector: Collector, parent: Got, service: str, name: str) -> Got | None:
    return next((s for s in collector.of_trace(parent.trace_id) if s.parent_id == parent.span_id
                 and (s.service, s.name) == (service, name)), None)


async def test_a_rounds_end_its_next_pairing_and_its_games_are_one_trace(
        traced: tuple[Platform, Service, str], collector: Collector) -> None:
    platform, _, database_url = traced
    org = await organizer(platform.a, database_url)
    tid = await bot_cup(org, {"kind": "swiss", "rounds": 2}, 4, FAST)
    view = await played_out(org, tid, 4)
    round_two = sorted(m["match_id"] for m in view["matches"] if m["round_no"] == 2)
    assert len(round_two) == 2

    async def paired() -> Got | None:
        got = [s for s in collector.named("pair round", **{"tournament.id": tid})
               if s.parent_id]
        return got[0] if got else None

    pairing = await until(paired, timeout=30)
    recorded = collector.by_id(pairing.parent_id)
    assert recorded is not None and recorded.name == "results recorded"
    assert recorded.trace_id == pairing.trace_id
    assert recorded.attributes["tournament.id"] == tid
    assert "RoundCompleted" in recorded.attributes["turned"]
    result = collector.by_id(recorded.parent_id)
    assert result is not None and result.name == "tournament result"
    assert result.service == "tournaments" and result.attributes["game.id"]

    # Each call of round 2 opens its match in the lobby, whose game starts in the trace.
    async def called() -> dict[str, Got] | None:
        calls = {s.attributes["match.id"]: s for s in collector.of_trace(pairing.trace_id)
                 if s.name == "call match" and s.parent_id == pairing.span_id}
        if sorted(calls) != round_two:
            return None
        for call in calls.values():
            request = child(collector, call, "tournaments", "request")
            opened = request and child(collector, request, "lobby", "open_match")
            begun = opened and child(collector, opened, "lobby", "start game")
            create = begun and child(collector, begun, "lobby", "request")
            if not (create and child(collector, create, "game", "create")):
                return None
        return calls

    calls = await until(called, timeout=30)
    assert {c.attributes["round"] for c in calls.values()} == {"2"}
    # The games' own play (bots here) is not in it: the games' tasks were started by the
    # creations' requests, but the bots' moves are no one's command.
    spans = collector.of_trace(pairing.trace_id)
    creations = {s.span_id for s in spans if (s.service, s.name) == ("game", "create")}
    assert len(creations) == 2
    assert not [s for s in spans if s.service == "game" and s.parent_id in creations]
    # The worker's lines of the round's games carry the trace's id.
    lines = [json.loads(line) for line in platform.workers[0].log.read_text().splitlines()
             if line.startswith("{")]
    assert sum(line.get("event") == "game_created" and "-R2-" in str(line["command_id"])
               and line.get("trace_id") == pairing.trace_id for line in lines) == 2
