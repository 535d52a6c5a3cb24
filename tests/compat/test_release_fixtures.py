"""What version 0.2.0 wrote, read and answered by today's code: its stored game events
(several games: people's, bots', a rated one on a sealed deal) decode and replay to the
same games by the engine's verification, every message its services sent one another
decodes as today's readers read it, today's engine answers its game commands with the
events 0.2.0 stored, and a game worker of today's answers its requests for stored events
as 0.2.0's did. The fixtures come from ``python -m tests.compat.record``."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path

import asyncpg
import msgspec
import nats
import pytest

from engine import replay
from engine.decide import decide
from engine.evolve import fold
from schemas import events as ev
from schemas import versions
from schemas.gamebus import CreateGame, EventsReply, EventsSince, GameReply, GameRequest
from schemas.tournaments import events as tev
from services.platform.events import game_registry, tournament_registry
from services.tournaments.state import fold as tournament_fold
from tests.compat.release import Recorded, Stored, decoded, games, kind_of, stored, traffic
from tests.services.lobby.harness import lobby_env, start

RELEASE = "0.2.0"
# Every game event type 0.2.0 had: its recorded games made each of them.
MADE = {"GameStarted", "HandDealt", "CardsLooked", "BidPlaced", "BidsRevealed", "CardsPassed",
        "CardsExchanged", "CardPlayed", "TrickWon", "HandScored", "TimeBankUsed", "PremoveSet",
        "PremoveCancelled", "PremoveDropped", "SeatTakenByBot", "SeatReclaimed", "GameEnded"}


@pytest.fixture(scope="module")
def rows() -> list[Stored]:
    return stored(RELEASE)


@pytest.fixture(scope="module")
def exchanges() -> Recorded:
    return decoded(traffic(RELEASE))


def test_the_stored_games_decode_and_replay_to_the_same_games(rows: list[Stored]) -> None:
    by_game = games(rows)
    assert len(by_game) == 6
    assert {type(e).__name__ for events in by_game.values() for e in events} == MADE
    for game_id, events in by_game.items():
        assert isinstance(events[-1], ev.GameEnded), game_id
        assert replay.verify(events) is None, game_id  # type: ignore[arg-type]
    starts = [events[0] for events in by_game.values()]
    assert any(s.rated and s.sealed for s in starts if isinstance(s, ev.GameStarted))


def test_every_recorded_message_reads_as_todays_readers_read_it(
        rows: list[Stored],
        exchanges: Recorded) -> None:
    asked, published = exchanges
    assert {kind_of(e.subject) for e in asked} == {
        "game.cmd", "svc.game.create", "svc.game.since", "svc.lobby.open_match",
        "svc.tournaments.create", "svc.tournaments.add_bots", "svc.tournaments.start_now"}
    assert {kind_of(s) for s, _ in published} == {
        "game.evt", "game.chat", "lobby.tables", "lobby.presence", "lobby.match",
        "tournament.evt", "player.note"}
    # Each published event is the stored one, as the stored row decodes.
    by_key = {(r.stream, r.version): r for r in rows}
    events = [body for s, body in published if kind_of(s) == "game.evt"]
    assert len({(env.stream, env.version) for env, _ in events}) == len(rows)
    for env, event in events:
        row = by_key[(env.stream, env.version)]
        assert (env.type, env.schema_version, env.body) == (row.type, row.schema_version,
                                                            row.body)
        assert isinstance(event, ev.Event)


def test_the_stored_tournament_folds_to_its_champion_from_its_recorded_game() -> None:
    registry = tournament_registry()
    events = [registry.decode(r.type, r.schema_version, r.body)
              for r in stored(RELEASE, "tournament_events.jsonl")]
    cup = tournament_fold(events)  # type: ignore[arg-type]
    (result,) = (e for e in events if isinstance(e, tev.MatchResult))
    (ended,) = (e for e in games(stored(RELEASE))[result.game_stream]
                if isinstance(e, ev.GameEnded))
    assert cup.status == "finished" and cup.champion is not None
    assert result.scores == ended.scores and result.reason == "played"


def test_no_version_is_version_1_of_every_type() -> None:
    """0.2.0 carried no schema label: today's readers take it as version 1 of each type,
    which they read; a label of a version beyond theirs is named."""
    assert all(versions.HEADER not in m.headers for m in traffic(RELEASE))
    assert versions.beyond(None) == []
    assert versions.beyond("GameRequest/1 PlayCard/1") == []
    assert versions.beyond("GameRequest/1 PlayCard/7") == [
        "PlayCard/7 (this code reads up to 1)"]


def test_todays_engine_answers_the_recorded_commands_with_the_stored_events(
        rows: list[Stored],
        exchanges: Recorded) -> None:
    by_game = games(rows)
    answered = 0
    for x in exchanges[0]:
        if not isinstance(x.request, GameRequest):
            continue
        reply: GameReply = x.reply
        events = by_game[x.request.game_id]
        if not reply.ok or reply.duplicate or reply.first_version == 0:
            continue  # refused, or answered before: nothing of its own was stored
        first, last = reply.first_version, reply.version
        state = fold(events[:first - 1])  # type: ignore[arg-type]
        command = msgspec.structs.replace(x.request.command, at=events[first - 1].at)  # type: ignore[attr-defined]
        assert decide(state, command) == events[first - 1:last], x.request
        answered += 1
    assert answered >= 20


async def test_a_game_worker_of_today_answers_the_recorded_requests(
        tmp_path: Path, make_database: Callable[[], Awaitable[str]], nats_url: str,
        nats_prefix: str, rows: list[Stored],
        exchanges: Recorded) -> None:
    """The stored rows, as 0.2.0 wrote them, in a database of today's; a game worker of
    today's answers each recorded ``svc.game.since`` with the reply 0.2.0's gave (but the
    feed positions, which are this database's), and each recorded ``svc.game.create``
    (under a new game id) with a game started from the same deal."""
    url = await make_database()
    await _load(url, rows)
    prefix = f"{nats_prefix}cv{uuid.uuid4().hex[:4]}"
    worker = start("game", tmp_path / "game-0.log", **lobby_env(url, nats_url, prefix))
    nc = await nats.connect(nats_url)
    ends, by_game = {r.stream: r.version for r in rows}, games(rows)
    answered = 0
    try:
        for x in exchanges[0]:
            if isinstance(x.request, EventsSince):
                # Asked then, the game had gone as far as the reply's version; asked now,
                # the same events come first, and the stream is at the game's end.
                recorded: EventsReply = x.reply
                asked = msgspec.structs.replace(x.request, limit=max(1, len(recorded.events)))
                got = await _ask(nc, f"{prefix}.{x.subject}", asked, EventsReply)
                if recorded.events:  # (none then: it asked ahead of the game)
                    assert _sans_positions(got) == _sans_positions(recorded)
                assert got.version == ends[x.request.game_id]  # type: ignore[attr-defined]
                answered += 1
            elif isinstance(x.request, CreateGame):
                again = msgspec.structs.replace(x.request, game_id=uuid.uuid4().hex)
                got = await _ask(nc, f"{prefix}.{x.subject}", again, GameReply)
                assert got.ok and not got.duplicate, got  # type: ignore[attr-defined]
                answered += 1
                if x.request.deal_seed:  # a sealed deal: dealt again, the same hands
                    assert await _first_deal(nc, prefix, again.game_id) == _hands(
                        by_game[x.request.game_id])
        assert answered == sum(isinstance(x.request, EventsSince | CreateGame)
                               for x in exchanges[0]) > 3
    finally:
        await nc.close()
        worker.stop()


async def _ask(nc: nats.NATS, subject: str, body: msgspec.Struct, kind: type[object]) -> object:
    msg = await nc.request(subject, msgspec.msgpack.encode(body), timeout=10)
    assert "Nats-Service-Error-Code" not in (msg.headers or {}), msg.headers
    assert versions.parse((msg.headers or {}).get(versions.HEADER)) == {kind.__name__: 1}
    return msgspec.msgpack.decode(msg.data, type=kind)


def _hands(events: list[msgspec.Struct]) -> tuple[tuple[str, ...], ...]:
    (dealt, *_) = (e for e in events if isinstance(e, ev.HandDealt))
    return dealt.hands


async def _first_deal(nc: nats.NATS, prefix: str, game_id: str) -> tuple[tuple[str, ...], ...]:
    for _ in range(50):
        got = await _ask(nc, f"{prefix}.svc.game.since", EventsSince(game_id=game_id),
                         EventsReply)
        events = [game_registry().decode(e.type, e.schema_version, e.body)
                  for e in got.events]  # type: ignore[attr-defined]
        if any(isinstance(e, ev.HandDealt) for e in events):
            return _hands(events)
        await asyncio.sleep(0.1)
    raise AssertionError(f"{game_id} was never dealt")


def _sans_positions(reply: object) -> object:
    assert isinstance(reply, EventsReply)
    return [msgspec.structs.replace(e, position=0) for e in reply.events]


async def _load(url: str, rows: list[Stored]) -> None:
    conn = await asyncpg.connect(url)
    try:
        await conn.executemany(
            "INSERT INTO game.events (stream, version, type, schema_version, event_id, "
            "occurred_at, correlation_id, causation_id, command_id, body) VALUES ($1, $2, $3,"
            " $4, $5::uuid, to_timestamp($6::float8 / 1000), $7, $8, $9, $10)",
            [(r.stream, r.version, r.type, r.schema_version, r.event_id, r.occurred_at_ms,
              r.correlation_id, r.causation_id, r.command_id, r.body) for r in rows])
    finally:
        await conn.close()
