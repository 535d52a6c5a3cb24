"""A ranked match is followed from its players' joins to their rating notes, across the
processes (two lobby copies, game workers, ratings), exported the way a deployment
exports it (``OTEL_EXPORTER_OTLP_ENDPOINT`` at a collector of the test's own).

Two traces tell it, joined by links: the match's (one ``queue_join`` -> ``match
formed``, linked to the other joins -> ``start game`` on the last acceptance -> the
worker's ``create``), and the game's end (the last card's command -> its commit ->
the ``GameEnded`` publish -> ``rating computed`` in the ratings service -> a
``deliver`` of each note at the player's gateway -> ``rating_changed``, linked back
to ``match formed``). Each hop is checked parent by parent, and the log lines of the
matchmaker and of the rating carry their trace's id."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest

from tests.e2e.otlp import Collector, Got
from tests.e2e.players import Seat, play_until_over
from tests.e2e.ranked import Ranked, found, queuers, ranked_platform
from tests.waiting import until


@pytest.fixture(scope="module")
async def traced(collector: Collector, tmp_path_factory: pytest.TempPathFactory,
                 make_database: Callable[[], Awaitable[str]], nats_url: str,
                 nats_prefix: str) -> AsyncIterator[Ranked]:
    async with ranked_platform(tmp_path_factory.mktemp("traced-ranked"), await make_database(),
                               nats_url, f"{nats_prefix}tq{uuid.uuid4().hex[:4]}",
                               OTEL_EXPORTER_OTLP_ENDPOINT=collector.url,
                               OTEL_BSP_SCHEDULE_DELAY="100") as platform:
        yield platform


def lines_of(log: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]


def chain(collector: Collector, span: Got) -> list[Got]:
    """``span`` and its ancestors as far as they were exported, the root last."""
    out = [span]
    while out[-1].parent_id:
        parent = collector.by_id(out[-1].parent_id)
        if parent is None:
            break
        out.append(parent)
    return out


async def test_a_ranked_match_is_followed_from_the_joins_to_the_rating_notes(
        traced: Ranked, collector: Collector) -> None:
    players = await queuers(traced, 4, "traced")
    ids = {q.id for q in players}
    for q in players:
        await q.join()
    offers = await found(players)
    match_id = str(offers[0]["match_id"])
    for q in players:
        await q.sock.send({"type": "queue_accept", "match_id": match_id})
    started = {q.id: await q.note("match_started", 20) for q in players}
    game_id = str(started[players[0].id]["game_id"])
    seats = [Seat(q.player, q.sock, game_id) for q in players]
    for s in seats:
        await s.subscribe()
    await play_until_over(seats)

    # The match's trace: one join its parent, the three others linked.
    async def formed() -> Got | None:
        got = collector.named("match formed", **{"match.id": match_id})
        return got[0] if got else None

    match = await until(formed, timeout=30)
    joins = {s.attributes["player.id"]: s for s in collector.named("queue_join")
             if s.attributes.get("player.id") in ids}
    assert set(joins) == ids and match.service == "lobby"
    first = next(j for j in joins.values() if j.span_id == match.parent_id)
    assert match.trace_id == first.trace_id
    assert set(match.links) == {j.ref for j in joins.values() if j is not first}
    assert len({j.trace_id for j in joins.values()}) == 4  # four joins, four traces

    # The game's start, on whichever copy took the last acceptance, continues it; the
    # worker's creation is its request's child.
    async def created() -> Got | None:
        starts = collector.named("start game", **{"match.id": match_id})
        if not starts:
            return None
        requests = [s for s in collector.of_trace(match.trace_id)
                    if s.name == "request" and s.parent_id == starts[0].span_id]
        made = [s for s in collector.of_trace(match.trace_id) if s.service == "game"
                and s.name == "create" and requests and s.parent_id == requests[0].span_id]
        return starts[0] if made else None

    start = await until(created, timeout=30)
    assert (start.trace_id, start.parent_id) == (match.trace_id, match.span_id)
    assert start.attributes["game.id"] == game_id

    # The rating: its span the child of the GameEnded's publish, in the last card's trace.
    async def rated() -> Got | None:
        got = collector.named("rating computed", **{"game.id": game_id})
        return got[0] if got else None

    rating = await until(rated, timeout=30)
    assert rating.service == "ratings"
    up = [(s.service, s.name) for s in chain(collector, rating)]
    assert up[:3] == [("ratings", "rating computed"), ("game", "publish"), ("game", "commit")]
    assert up[-1] == ("lobby", "command play")

    # Each player's note: delivered at their gateway in the rating's trace, and sent in a
    # span linked to the match.
    async def noted() -> list[Got] | None:
        got = collector.named("rating_changed", **{"game.id": game_id})
        return got if {s.attributes["player.id"] for s in got} == ids else None

    notes = await until(noted, timeout=30)
    for note in notes:
        assert note.trace_id == rating.trace_id and note.links == (match.ref,)
        deliver = collector.by_id(note.parent_id)
        assert deliver is not None and deliver.name == "deliver"
        assert deliver.parent_id == rating.span_id

    # The matchmaker's line of the match and the rating's line carry their traces' ids.
    lobby_lines = [line for g in traced.gateways for line in lines_of(g.log)]
    assert any(line.get("event") == "queue_match_formed" and line.get("match_id") == match_id
               and line.get("trace_id") == match.trace_id for line in lobby_lines)
    assert any(line.get("event") == "rated" and line.get("game") == game_id
               and line.get("trace_id") == rating.trace_id
               for line in lines_of(traced.ratings.log))
    await traced.drain(players)
