"""One trace per move across every process, exported the way a deployment exports it.

Two gateways and a game worker run as their own processes with the standard
``OTEL_EXPORTER_OTLP_ENDPOINT`` pointed at a collector of the test's own (OTLP over
HTTP, decoded with the protocol's own messages). A person's bid at gateway a must
give one trace holding: the gateway's command span, its NATS request, the worker's
answer, its decide and commit, the events' JetStream publish, and a delivery span
at each gateway (gateway b serves the other person); and the worker's log lines for
the command carry that trace's id."""

from __future__ import annotations

import contextlib
import itertools
import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.conftest import Platform
from tests.e2e.otlp import Collector, Got
from tests.e2e.players import Seat, two_and_bots
from tests.services.lobby.harness import Service, lobby_env, start
from tests.waiting import until


@pytest.fixture(scope="module")
def traced(collector: Collector, tmp_path_factory: pytest.TempPathFactory, database_url: str,
           nats_url: str, nats_prefix: str) -> Iterator[Platform]:
    logs = tmp_path_factory.mktemp("traced-logs")
    env = lobby_env(database_url, nats_url, f"{nats_prefix}tr{uuid.uuid4().hex[:4]}",
                    SPADES_LOG_LEVEL="debug", OTEL_EXPORTER_OTLP_ENDPOINT=collector.url,
                    OTEL_BSP_SCHEDULE_DELAY="100")
    started: list[Service] = []
    try:
        started.append(start("game", logs / "game-t.log", SPADES_BOT_THINK_MS="0", **env))
        started += [start("lobby", logs / f"lobby-t{i}.log", **env) for i in range(2)]
        yield Platform(started[1:], started[:1], logs)
    finally:
        for svc in reversed(started):
            svc.stop()


async def _first_bid(seats: list[Seat]) -> tuple[Seat, str]:
    """Play on until gateway a's person has bid; their seat and the bid's command id."""
    a = seats[0]
    while True:
        for s in seats:
            move = s.next_move()
            if s is a and move is not None and move["type"] == "bid":
                await s.act()
                assert s.pending is not None
                return s, s.pending
            await s.act()
        for s in seats:
            with contextlib.suppress(TimeoutError):
                s.absorb(await s.sock.recv(0.2))


async def test_a_move_is_one_trace_from_the_frame_to_every_gateways_delivery(
        traced: Platform, collector: Collector) -> None:
    a, b, _, seats = await two_and_bots(traced, ("Tia", "Teo"), "classic")
    seat, command_id = await _first_bid(seats)
    await seat.sock.until(lambda f: f["type"] == "ack" and f["command_id"] == command_id)

    async def command_span() -> Got | None:
        with collector.lock:
            return next((s for s in collector.spans if s.name == "command bid"
                         and s.attributes.get("command.id") == command_id), None)

    root = await until(command_span, timeout=20)
    want = {("lobby", "command bid"), ("lobby", "request"), ("game", "command"),
            ("game", "apply"), ("game", "decide"), ("game", "commit"), ("game", "publish")}

    async def whole() -> list[Got] | None:
        spans = collector.of_trace(root.trace_id)
        named = {(s.service, s.name) for s in spans}
        delivered = {s.instance for s in spans if s.name == "deliver"}
        return spans if want <= named and delivered == {"lobby-t0", "lobby-t1"} else None

    spans = await until(whole, timeout=20)
    by = {(s.service, s.name): s for s in spans}
    # Each hop is the child of the one before it.
    chain = [("lobby", "command bid"), ("lobby", "request"), ("game", "command"),
             ("game", "apply"), ("game", "commit"), ("game", "publish")]
    for parent, child in itertools.pairwise(chain):
        assert by[child].parent_id == by[parent].span_id, (parent, child)
    assert by[("game", "decide")].parent_id == by[("game", "apply")].span_id
    assert {s.parent_id for s in spans if s.name == "deliver"} == {by[("game", "publish")].span_id}
    assert root.attributes["game.id"] == seat.game_id
    # The worker's lines for the command carry the trace's id.
    lines = [json.loads(line) for line in Path(traced.workers[0].log).read_text().splitlines()
             if line.startswith("{")]
    assert any(line.get("trace_id") == root.trace_id and line["event"] == "command_applied"
               for line in lines)
    for s in seats:
        await s.sock.close()
    await a.aclose()
    await b.aclose()
