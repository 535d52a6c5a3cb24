"""Fair play's consumer of rated games' endings, over real NATS and Postgres: a game is
weighed from its stored events (asked of the game workers' ``svc.game.since``), its
pairs judged over their recent games, a pair over the threshold opens one case, and a
redelivered ending opens no second one."""

from __future__ import annotations

import asyncio
import json

import asyncpg
import msgspec
from prometheus_client import REGISTRY

from engine.fairplay.pairs import PARTNERS_Z
from schemas import events as ev
from schemas.gamebus import EventsReply, EventsSince
from services.platform import bus
from services.platform.consumer import Consumer
from services.platform.events import game_registry
from services.platform.eventstore import EventStore
from services.platform.eventstore.outbox import OutboxRelay, republish
from services.ratings.fairplay.scoring import Scoring, pairs_of
from tests.engine.test_replay import _bot_game
from tests.services.ratings.conftest import RatedGames

PLAYERS = ("p1", "p2", "p3", "p4")


def _named(seed: str, rated: bool = True) -> list[ev.Event]:
    """A whole quick game of basic bots, as four accounts' rated game."""
    out: list[ev.Event] = []
    for e in _bot_game("quick", seed):
        if isinstance(e, (ev.GameStarted, ev.GameEnded)):
            e = msgspec.structs.replace(e, players=PLAYERS, rated=rated)
        out.append(e)
    return out


async def _seed_history(ratings: asyncpg.Pool, games: int) -> None:
    """Earlier rated games of the same table in which p1 and p3, partners, followed each
    other's real hands at every telling decision."""
    for n in range(games):
        telling = [[0, seat, 1, "AS"] for seat in (0, 2) for _ in range(2)]
        await ratings.execute(
            "INSERT INTO fairplay_games (game_id, players, ended_at, hands, points, telling)"
            " VALUES ($1, $2, $3, 4, $4, $5::jsonb)", f"old{n}", list(PLAYERS), n + 1,
            [300, 200], json.dumps(telling))


def _weighed() -> float:
    """Games weighed by this process so far."""
    return REGISTRY.get_sample_value("spades_fairplay_weigh_seconds_count") or 0.0


async def _until(check: object, timeout: float = 60) -> None:
    async with asyncio.timeout(timeout):
        while not await check():  # type: ignore[operator]
            await asyncio.sleep(0.1)


async def test_a_rated_game_is_weighed_once_and_its_flagged_pair_opens_one_case(
        rated_games: RatedGames) -> None:
    games, ratings, client, names = (rated_games.games, rated_games.ratings,
                                     rated_games.client, rated_games.names)
    store = EventStore(games, game_registry())

    async def since(req: EventsSince) -> EventsReply:
        events = await store.published(req.game_id, req.version + 1, req.version + req.limit)
        return EventsReply(events=events, version=await store.version(req.game_id))

    answering = await client.answer(names.game_events_since, bus.Endpoint(
        "since", EventsSince, since))
    await _seed_history(ratings, 30)
    await store.append("g1", 0, _named("a1" * 32))
    await store.append("casual", 0, _named("b2" * 32, rated=False))
    spec = bus.ConsumerSpec(names.game_events_stream, "ratings-fairplay",
                            names.game_events_of_type("GameEnded"), ack_wait=30, max_deliver=3)
    scoring = Scoring(ratings, client, names, deals=2, per_player=200, league=500)
    consumer = Consumer(client, ratings, spec, scoring.handle, batch=1, before=scoring.before)
    await consumer.start()
    relay = OutboxRelay(games, client, names.game_event)
    try:
        await relay.drain()
        await _until(lambda: ratings.fetchval(
            "SELECT count(*) = 2 FROM consumer_processed WHERE consumer = 'ratings-fairplay'"))
        row = await ratings.fetchrow("SELECT * FROM fairplay_games WHERE game_id = 'g1'")
        assert row is not None and list(row["players"]) == list(PLAYERS)
        assert row["hands"] >= 1 and list(row["points"]) != [0, 0]
        assert await ratings.fetchval(
            "SELECT count(*) FROM fairplay_games WHERE game_id = 'casual'") == 0
        cases = await ratings.fetch("SELECT * FROM fairplay_cases")
        assert [(list(c["players"]), c["relation"]) for c in cases] == [
            (["p1", "p3"], "partners")]
        assert cases[0]["score"] >= PARTNERS_Z and "g1" in cases[0]["games"]
        # The same ending again, under new message ids (as a resync publishes it), and
        # then another game: the repeat is skipped, and only the new game moves the case.
        weighed = _weighed()
        await republish([games], client, names.game_event, stream="g1")
        await store.append("g2", 0, _named("c3" * 32))
        await relay.drain()
        await _until(lambda: ratings.fetchval(
            "SELECT count(*) = 1 FROM fairplay_games WHERE game_id = 'g2'"))
        events = await ratings.fetch("SELECT type, body FROM fairplay_case_events ORDER BY id")
        assert [(e["type"], json.loads(e["body"])["game_id"]) for e in events] == [
            ("opened", "g1"), ("scored", "g2")]
        assert await ratings.fetchval("SELECT count(*) FROM fairplay_cases") == 1
        assert _weighed() == weighed + 1  # g2 only: the repeat was not weighed again
    finally:
        await consumer.stop()
        await answering.unsubscribe()


def test_a_game_has_two_partnerships_and_four_pairs_of_opponents() -> None:
    pairs = pairs_of(("d", "a", "b", "c"))
    assert sorted(pairs) == [(("a", "b"), "opponents"), (("a", "c"), "partners"),
                             (("a", "d"), "opponents"), (("b", "c"), "opponents"),
                             (("b", "d"), "partners"), (("c", "d"), "opponents")]
