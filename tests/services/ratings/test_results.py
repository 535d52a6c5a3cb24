"""The ratings service's reading of finished games, on a real database."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable

import asyncpg
import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from nats.aio.msg import Msg

from schemas.notes import Note, RatingChanged
from schemas.subjects import Names
from services.platform import bus, connection
from services.platform.busclient import BusClient
from services.platform.consumer import Consumer
from services.platform.db import create_pool
from services.ratings import results, store
from tests.services.ratings.conftest import NOW_MS, SYSTEM, Feed, ended, envelope

PEOPLE = ("a", "b", "c", "d")


async def _rating(pool: asyncpg.Pool, player: str) -> int | None:
    row = (await store.ratings_of(pool, [player])).get(player)
    return None if row is None else int(row["rating"])


async def test_only_rated_games_of_four_people_move_ratings(pool: asyncpg.Pool,
                                                            feed: Feed) -> None:
    await feed(envelope("g1", ended(("a", "bot:basic", "c", "bot:basic"))))
    await feed(envelope("g2", ended(PEOPLE, rated=False)))
    await feed(envelope("g3", ended(("a", "b", "", "d"))))
    assert await _rating(pool, "a") is None
    await feed(envelope("g4", ended(PEOPLE)))
    assert [await _rating(pool, p) for p in PEOPLE] == [1520, 1480, 1520, 1480]
    assert await _rating(pool, "bot:basic") is None


async def test_a_player_row_counts_results_peak_and_last_game(pool: asyncpg.Pool,
                                                              feed: Feed) -> None:
    await feed(envelope("g1", ended(PEOPLE, winner=0), at_ms=NOW_MS))
    assert (await store.ratings_of(pool, ["a"]))["a"]["peak"] == 1520  # the new high at once
    await feed(envelope("g2", ended(PEOPLE, winner=None, abandoned=(1,)), at_ms=NOW_MS + 5000))
    await feed(envelope("g3", ended(PEOPLE, winner=1), at_ms=NOW_MS + 9000))
    rows = await store.ratings_of(pool, PEOPLE)
    a, b = rows["a"], rows["b"]
    assert (a["games"], a["wins"], a["losses"], a["draws"], a["left"]) == (3, 1, 1, 1, 0)
    assert (b["games"], b["wins"], b["losses"], b["draws"], b["left"]) == (3, 1, 1, 0, 1)
    assert a["peak"] == 1520 > a["rating"]
    assert int(a["last_game_at"].timestamp() * 1000) == NOW_MS + 9000


async def test_history_rows_say_how_each_change_came_about(pool: asyncpg.Pool,
                                                           feed: Feed) -> None:
    """Four 1500s, a has left: a scores 0 (-20), its partner c still wins (+20)."""
    await feed(envelope("g1", ended(PEOPLE, winner=0, abandoned=(0,))))
    rows = {r["player_id"]: r for r in await pool.fetch("SELECT * FROM rating_history")}
    got = {p: (r["rating_before"], r["rating_after"], r["delta"], r["k"], r["result"],
               r["partner"], list(r["opponents"])) for p, r in rows.items()}
    assert got == {
        "a": (1500, 1480, -20, 40, "left", "c", ["b", "d"]),
        "b": (1500, 1480, -20, 40, "loss", "d", ["c", "a"]),
        "c": (1500, 1520, 20, 40, "win", "a", ["d", "b"]),
        "d": (1500, 1480, -20, 40, "loss", "b", ["a", "c"]),
    }


async def test_a_forfeit_loses_as_the_winner_says(pool: asyncpg.Pool, feed: Feed) -> None:
    forfeit = msgspec.structs.replace(ended(PEOPLE, winner=1), reason="forfeit", forfeited_by=2)
    await feed(envelope("g1", forfeit))
    assert [await _rating(pool, p) for p in PEOPLE] == [1480, 1520, 1480, 1520]


async def test_a_game_ended_twice_rates_once_and_tells_each_player_once(
        pool: asyncpg.Pool, nats_url: str, nats_prefix: str) -> None:
    """The same ending arrives twice (republished past JetStream's de-duplication):
    the consumer's record of (stream, version) makes the second a no-op, and each
    player hears of its new rating once, after the commit."""
    tag = uuid.uuid4().hex[:8]
    subject, name = f"{nats_prefix}.twice{tag}", f"{nats_prefix}_TWICE{tag}"
    names = Names(f"{nats_prefix}n{tag}")
    nc = await connection.connect(nats_url, "test")
    client = BusClient(nc)
    js = client.js
    heard: list[tuple[str, RatingChanged]] = []

    async def on_note(msg: Msg) -> None:
        note = msgspec.msgpack.decode(msg.data, type=Note)
        assert isinstance(note, RatingChanged)
        heard.append((msg.subject.rsplit(".", 1)[-1], note))

    await nc.subscribe(names.player_notes_all, cb=on_note)
    await bus.ensure_stream(client, bus.StreamSpec(name, (f"{subject}.>",), duplicate_window=60))
    spec = bus.ConsumerSpec(name, f"r{tag}", f"{subject}.>", ack_wait=5, max_deliver=3)
    consumer = Consumer(client, pool, spec, results.handler(SYSTEM),
                            after_commit=results.notifier(pool, BusClient(nc), names))
    await consumer.start()
    try:
        body = msgspec.msgpack.encode(envelope("g1", ended(PEOPLE)))
        await js.publish(f"{subject}.g1", body, headers={"Nats-Msg-Id": "first"})
        await js.publish(f"{subject}.g1", body, headers={"Nats-Msg-Id": "again"})
        for _ in range(100):
            info = await js.consumer_info(name, spec.durable)
            if len(heard) >= 4 and info.num_pending == 0 and info.num_ack_pending == 0:
                break
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.2)
    finally:
        await consumer.stop()
        await nc.close()
    assert await pool.fetchval("SELECT count(*) FROM rating_history") == 4
    assert [await _rating(pool, p) for p in PEOPLE] == [1520, 1480, 1520, 1480]
    assert sorted((p, n.game_id, n.rating_before, n.rating_after) for p, n in heard) == [
        ("a", "g1", 1500, 1520), ("b", "g1", 1500, 1480), ("c", "g1", 1500, 1520),
        ("d", "g1", 1500, 1480)]


def test_a_player_in_two_seats_is_not_four_people() -> None:
    assert results.rated_players(ended(("a", "b", "c", "d"))) == PEOPLE
    assert results.rated_players(ended(("a", "b", "a", "d"))) is None


# A run of endings among six players, so that games share players: each ending is
# (seats, winner, seats that left, rated).
ENDING = st.tuples(st.permutations("abcdef").map(lambda p: tuple(p[:4])),
                   st.sampled_from([0, 1, None]), st.sampled_from([(), (0,), (3,)]),
                   st.booleans())


@pytest.fixture
async def two_databases(make_database: Callable[[], Awaitable[str]]) -> tuple[str, str]:
    return await make_database(), await make_database()


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(run=st.lists(ENDING, min_size=1, max_size=10))
def test_a_run_applied_whole_leaves_what_one_at_a_time_leaves(
        two_databases: tuple[str, str],
        run: list[tuple[tuple[str, str, str, str], int | None, tuple[int, ...], bool]]) -> None:
    """The consumer's fast path (a whole fetch in three statements) and its fallback
    (one ending per savepoint) agree on every row and every history line, in order."""
    envs = [envelope(f"g{n}", ended(seats, winner, rated, abandoned), at_ms=NOW_MS + n)
            for n, (seats, winner, abandoned, rated) in enumerate(run)]

    async def compare() -> None:
        whole, each = [await create_pool(url, "ratings") for url in two_databases]
        try:
            for pool in (whole, each):
                await pool.execute("TRUNCATE ratings, rating_history")
            async with whole.acquire() as conn, conn.transaction():
                await results.batch_handler(SYSTEM)(conn, envs)
            one = results.handler(SYSTEM)
            for env in envs:
                async with each.acquire() as conn, conn.transaction():
                    await one(conn, env)
            for sql in ("SELECT player_id, rating, games, wins, losses, draws, \"left\", peak,"
                        " last_game_at FROM ratings ORDER BY player_id",
                        "SELECT player_id, game_stream, rating_before, rating_after, delta, k,"
                        " result, partner, opponents, rated_at FROM rating_history ORDER BY id"):
                assert [tuple(r) for r in await whole.fetch(sql)] == \
                    [tuple(r) for r in await each.fetch(sql)]
        finally:
            await asyncio.gather(whole.close(), each.close())

    asyncio.run(compare())
