"""Game workers over two databases: each game whole in the database it was created in
(a new one where its id hashes to), commands and group commits as on one, a leaving
worker's games adopted from both, and a database added later moving no game."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable

import asyncpg
import pytest
from nats.aio.client import Client

from engine.evolve import fold
from engine.presets import CLASSIC
from engine.state import seats_in
from schemas import commands as cmd
from schemas.gamebus import CreateGame, GameRequest
from schemas.subjects import Names
from services.game.settings import SHARD_DATABASE_URLS
from services.game.shards import ShardedGameStore
from services.game.store import GameStore
from services.platform import dbadmin
from services.platform.eventstore import EventStore
from services.platform.eventstore.outbox import OutboxRelay, Publisher
from services.platform.eventstore.shards import shard_of
from tests.conftest import Servers
from tests.services.game.conftest import (
    REGISTRY,
    Harness,
    WorkerProcess,
    send_until_answered,
)
from tests.waiting import until

PEOPLE = ("ann", "bob", "cy", "di")


@pytest.fixture
async def second_db(make_database: Callable[[], Awaitable[str]]) -> str:
    return await make_database()


@pytest.fixture
async def second_pool(second_db: str) -> AsyncIterator[asyncpg.Pool]:
    p = await asyncpg.create_pool(second_db, min_size=1, max_size=20,
                                  server_settings={"search_path": "game,public"})
    assert p is not None
    yield p
    await p.close()


@pytest.fixture
async def sharded(pool: asyncpg.Pool, second_pool: asyncpg.Pool, nc: Client,
                  prefix: str) -> AsyncIterator[Harness]:
    """The harness with its games over its own database and a second one."""
    h = Harness(pool, nc, Names(prefix))
    relay = OutboxRelay(second_pool, h.client, h.names.game_event, poll_seconds=0.1,
                        sweep_after=0.5)
    second = GameStore(second_pool, EventStore(
        second_pool, REGISTRY, publish=Publisher(h.client, h.names.game_event, relay)))
    h.store = ShardedGameStore([h.store, second])  # type: ignore[assignment]
    h.events = h.store.events
    await h.start()
    await relay.start()
    yield h
    await h.stop()
    await relay.stop()


def ids_on(shard: int, n: int, tag: str) -> list[str]:
    return [g for g in (f"{tag}{i}" for i in range(200)) if shard_of(g, 2) == shard][:n]


async def test_each_game_lives_whole_in_its_database_and_plays_as_on_one(
        sharded: Harness, pool: asyncpg.Pool, second_pool: asyncpg.Pool) -> None:
    worker = await sharded.worker(group_commit_ms=300)
    games = [*ids_on(0, 2, "a"), *ids_on(1, 2, "a")]
    for g in games:
        assert (await sharded.create(g, CLASSIC, PEOPLE)).ok
    for db, ours, theirs in ((pool, games[:2], games[2:]), (second_pool, games[2:], games[:2])):
        for table in ("games", "leases"):
            column = "game_id" if table == "games" else "name"
            names = {r[0] for r in await db.fetch(f"SELECT {column} FROM {table}")}
            assert set(ours) <= names and not set(theirs) & names
    states = {g: await sharded.state(g) for g in games}
    batches = worker.appends.batches
    replies = await asyncio.gather(*(
        sharded.send(g, cmd.PlaceBid(seat=seats_in(s.waiting)[0], bid=3), f"bid-{g}")
        for g, s in states.items()))
    assert all(r.ok for r in replies)
    assert worker.appends.batches == batches + 1  # one batch: a transaction in each database
    for db, ours in ((pool, games[:2]), (second_pool, games[2:])):
        txs = await db.fetch("SELECT DISTINCT tx_id FROM events WHERE stream = ANY($1::text[])"
                             " AND version = $2", ours, states[ours[0]].version + 1)
        assert len(txs) == 1
    # A repeat is answered from the database that holds the game.
    g = games[3]
    again = await sharded.send(g, cmd.PlaceBid(seat=seats_in(states[g].waiting)[0], bid=3),
                               f"bid-{g}")
    assert again.ok and again.duplicate


async def test_a_leaving_workers_games_are_adopted_from_both_databases(
        sharded: Harness) -> None:
    leaving = await sharded.worker(owner="leaving", lease_seconds=60)
    staying = await sharded.worker(owner="staying", lease_seconds=60, heartbeat_seconds=30)
    games = [*ids_on(0, 2, "h"), *ids_on(1, 2, "h")]
    for g in games:
        assert (await leaving.create(CreateGame(game_id=g, command_id=f"c-{g}", rules=CLASSIC,
                                                players=PEOPLE))).ok
    assert set(games) <= leaving.actors.keys()
    started = time.monotonic()
    await leaving.stop()

    async def all_adopted() -> bool:
        return all(g in staying.actors for g in games)
    await until(all_adopted, timeout=5)
    assert time.monotonic() - started < 3
    for g in games:
        state = await sharded.state(g)
        reply = await sharded.send(g, cmd.PlaceBid(seat=seats_in(state.waiting)[0], bid=2),
                                   f"after-{g}")
        assert reply.ok


async def test_a_game_service_process_migrates_its_second_database_and_plays_there(
        spawn: Callable[..., WorkerProcess], test_servers: Servers, nc: Client,
        prefix: str) -> None:
    name = f"spades_shard_{uuid.uuid4().hex[:10]}"
    url = await dbadmin.ensure_database(test_servers.admin_url, name)  # empty: no schema
    try:
        spawn("ws", shard_database_urls=url)
        names = Names(prefix)
        (game_id,) = ids_on(1, 1, "p")
        created = await send_until_answered(nc, names.game_create, CreateGame(
            game_id=game_id, command_id="c", rules=CLASSIC, players=PEOPLE))
        assert created.ok
        conn = await asyncpg.connect(url, server_settings={"search_path": "game"})
        try:
            assert await conn.fetchval("SELECT count(*) FROM events WHERE stream = $1",
                                       game_id) == created.version
            store = EventStore(conn, REGISTRY)
            state = fold([r.event for r in await store.read(game_id)])  # type: ignore[misc]
        finally:
            await conn.close()
        reply = await send_until_answered(nc, names.game_command(game_id), GameRequest(
            game_id=game_id, command_id="bid", player_id=PEOPLE[seats_in(state.waiting)[0]],
            command=cmd.PlaceBid(seat=seats_in(state.waiting)[0], bid=3)))
        assert reply.ok and reply.version == created.version + 1
    finally:
        await dbadmin.drop(test_servers.admin_url, name)


def spades(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", "from services.cli import main; main()", *args],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, **env})


async def test_operators_tools_follow_the_games_over_both_databases(
        sharded: Harness, game_db: str, second_db: str, second_pool: asyncpg.Pool,
        nats_url: str, prefix: str) -> None:
    await sharded.worker()
    here, there = ids_on(0, 1, "op")[0], ids_on(1, 1, "op")[0]
    for g in (here, there):
        assert (await sharded.create(g, CLASSIC, PEOPLE)).ok
        state = await sharded.state(g)
        assert (await sharded.send(g, cmd.PlaceBid(seat=seats_in(state.waiting)[0], bid=3),
                                   f"bid-{g}")).ok
    counts = {g: len(await sharded.stored(g)) for g in (here, there)}
    both = {"DATABASE_URL": game_db, SHARD_DATABASE_URLS: second_db, "NATS_URL": nats_url,
            "SPADES_NATS_PREFIX": prefix}

    replayed = spades(both, "replay", there)
    assert replayed.returncode == 0, replayed.stderr
    assert replayed.stdout.strip().splitlines()[-1].startswith(
        f"verified: {counts[there]} events")
    own_only = spades({**both, SHARD_DATABASE_URLS: ""}, "replay", there)
    assert own_only.returncode == 1 and "no game" in own_only.stderr

    exported = spades(both, "events", "export", there)
    assert exported.returncode == 0 and len(exported.stdout.splitlines()) == counts[there]

    await second_pool.execute("UPDATE events SET body = $1 WHERE stream = $2 AND version = 1",
                              (await sharded.pool.fetchval(
                                  "SELECT body FROM events WHERE stream = $1 AND version = 1",
                                  here)), there)
    checked = spades(both, "replay", "--verify-all")
    assert checked.returncode == 2, checked.stderr
    assert f"{there}: DIVERGES" in checked.stdout and f"{here}:" not in checked.stdout
    assert checked.stdout.strip().splitlines()[-1] == "2 game(s): 1 verified, 1 diverged"

    resynced = spades(both, "resync")
    assert resynced.returncode == 0, resynced.stderr
    total = sum(counts.values())
    assert resynced.stdout.startswith(
        f"republished {total} event(s); JetStream stored {total}"), resynced.stdout
    one = spades(both, "resync", "--stream", there)
    assert one.returncode == 0, one.stderr
    assert one.stdout.startswith(f"republished {counts[there]} event(s)"), one.stdout


async def _bid(nc: Client, names: Names, game_id: str, state_of: asyncpg.Pool,
               command_id: str) -> int:
    """One bid by whoever is to bid; returns the version it made."""
    store = EventStore(state_of, REGISTRY)
    state = fold([r.event for r in await store.read(game_id)])  # type: ignore[misc]
    seat = seats_in(state.waiting)[0]
    reply = await send_until_answered(nc, names.game_command(game_id), GameRequest(
        game_id=game_id, command_id=command_id, player_id=PEOPLE[seat],
        command=cmd.PlaceBid(seat=seat, bid=3)))
    assert reply.ok, reply
    assert reply.version == state.version + 1
    return reply.version


async def test_a_database_added_to_a_running_deployment_moves_no_game(
        spawn: Callable[..., WorkerProcess], pool: asyncpg.Pool, second_pool: asyncpg.Pool,
        game_db: str, second_db: str, nc: Client, nats_url: str, prefix: str) -> None:
    names = Names(prefix)
    before = spawn("one-db")
    # Games the hash over two databases would send to the second: played on the first.
    old = ids_on(1, 2, "old")
    for g in old:
        assert (await send_until_answered(nc, names.game_create, CreateGame(
            game_id=g, command_id=f"c-{g}", rules=CLASSIC, players=PEOPLE))).ok
        await _bid(nc, names, g, pool, f"bid1-{g}")
    before.signal(signal.SIGTERM)
    before.proc.wait(30)

    spawn("two-dbs", shard_database_urls=second_db)
    for g in old:  # found where they were, and played on there
        await _bid(nc, names, g, pool, f"bid2-{g}")
        assert await second_pool.fetchval("SELECT count(*) FROM events WHERE stream = $1",
                                          g) == 0
    new = [*ids_on(0, 1, "new"), *ids_on(1, 1, "new")]
    for g in new:
        assert (await send_until_answered(nc, names.game_create, CreateGame(
            game_id=g, command_id=f"c-{g}", rules=CLASSIC, players=PEOPLE))).ok
    await _bid(nc, names, new[0], pool, f"bid1-{new[0]}")
    await _bid(nc, names, new[1], second_pool, f"bid1-{new[1]}")  # new games spread over both
    assert await pool.fetchval("SELECT count(*) FROM games WHERE game_id = $1", new[1]) == 0

    both = {"DATABASE_URL": game_db, SHARD_DATABASE_URLS: second_db, "NATS_URL": nats_url,
            "SPADES_NATS_PREFIX": prefix}
    for g in (*old, *new):
        replayed = spades(both, "replay", g)
        assert replayed.returncode == 0, replayed.stderr
        assert replayed.stdout.strip().splitlines()[-1].startswith("verified:"), g
    one = spades(both, "resync", "--stream", old[0])
    assert one.returncode == 0 and one.stdout.startswith("republished 4 event(s)"), one.stdout
