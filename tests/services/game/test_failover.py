"""Two worker processes and one game: the owner is killed, paused or stopped mid-hand,
and the game goes on and finishes on the other, written by one worker at a time."""

from __future__ import annotations

import signal
import time
from collections.abc import Callable

import asyncpg
from msgspec.structs import replace
from nats.aio.client import Client

from engine.presets import HOUSE
from engine.replay import verify
from schemas import commands as cmd
from schemas.events import Event, GameEnded, HandDealt
from schemas.gamebus import CreateGame, GameRequest
from schemas.subjects import Names
from services.platform.eventstore import EventStore
from tests.metrics import value
from tests.services.game.conftest import (
    REGISTRY,
    WorkerProcess,
    ended_on_jetstream,
    send_until_answered,
)
from tests.services.platform.pausing import pause_until_adopted
from tests.waiting import until

BOTS = ("bot:basic",) * 4
TWO_HANDS = replace(HOUSE, target=None, max_hands=2)
# Bots take a little time, so the game is still in its first hand when the owner goes.
SLOW = {"bot_think_ms": "25"}


class Game:
    def __init__(self, pool: asyncpg.Pool, nc: Client, prefix: str, game_id: str) -> None:
        self.pool, self.nc, self.names, self.game_id = pool, nc, Names(prefix), game_id
        self.store = EventStore(pool, REGISTRY)

    async def create(self) -> None:
        reply = await send_until_answered(self.nc, self.names.game_create, CreateGame(
            game_id=self.game_id, command_id="create", rules=TWO_HANDS, players=BOTS))
        assert reply.ok

    async def owner(self) -> tuple[str, int]:
        row = await self.pool.fetchrow("SELECT holder, epoch FROM leases WHERE name = $1",
                                       self.game_id)
        assert row is not None
        return row["holder"], row["epoch"]

    async def version(self) -> int:
        return await self.store.version(self.game_id)

    async def finished(self) -> None:
        async def over() -> bool:
            events = [r.event for r in await self.store.read(self.game_id)]
            return bool(events) and isinstance(events[-1], GameEnded)
        await until(over, timeout=40, every=0.2)
        events: list[Event] = []
        for r in await self.store.read(self.game_id):
            assert isinstance(r.event, Event)
            events.append(r.event)
        assert verify(events) is None  # each event what the rules decide: nobody wrote twice
        ended = await until(lambda: ended_on_jetstream(self.nc.jetstream(), self.names,
                                                       self.game_id))
        # The stored ending reached JetStream (two hands, or more after a tie).
        assert ended == events[-1] and ended.hands_played >= 2

    async def past(self, version: int) -> None:
        async def moved() -> bool:
            return await self.version() >= version
        await until(moved, timeout=15)


async def _two_workers(spawn: Callable[..., WorkerProcess], game: Game,
                       **settings: str) -> tuple[WorkerProcess, WorkerProcess]:
    workers = {name: spawn(name, **SLOW, **settings) for name in ("wa", "wb")}
    await game.create()
    owner, epoch = await game.owner()
    assert epoch == 1
    await game.past(20)  # mid-hand: bids are in, tricks under way
    victim = workers.pop(owner)
    return victim, next(iter(workers.values()))


async def test_a_killed_workers_game_is_adopted_within_seconds_and_finishes(
        spawn: Callable[..., WorkerProcess], pool: asyncpg.Pool, nc: Client,
        prefix: str) -> None:
    game = Game(pool, nc, prefix, "killed")
    victim, survivor = await _two_workers(spawn, game)
    victim.signal(signal.SIGKILL)
    killed = time.monotonic()
    at_kill = await game.version()

    async def adopted() -> bool:
        return (await game.owner())[0] == survivor.name
    await until(adopted, timeout=10)
    assert time.monotonic() - killed < 5
    assert (await game.owner())[1] == 2
    await game.finished()
    assert await game.version() > at_kill
    assert '"adopted"' in survivor.text()


async def test_a_paused_worker_cannot_write_after_its_game_was_adopted(
        spawn: Callable[..., WorkerProcess], pool: asyncpg.Pool, nc: Client,
        prefix: str) -> None:
    game = Game(pool, nc, prefix, "paused")
    # A slow heartbeat: on waking, the paused worker's next bot move is almost always due
    # before its heartbeat, so it tries to append and the store refuses its epoch
    # ("fenced"); if the heartbeat comes first it finds the lease gone ("lease_lost").
    # Either way it writes nothing (the events replay exactly, below); the refusal of
    # the append itself is shown deterministically in test_ownership.
    victim, survivor = await _two_workers(spawn, game, heartbeat_seconds="1.0")

    async def adopted() -> bool:
        return (await game.owner())[0] == survivor.name

    async def new_owner_plays_on() -> None:
        await game.past(await game.version() + 10)

    async def gave_up() -> bool:
        text = victim.text()
        return '"fenced"' in text or '"lease_lost"' in text

    await pause_until_adopted(victim.proc.pid, adopted, new_owner_plays_on, gave_up)
    await game.finished()
    assert victim.proc.poll() is None  # it lives on, without the game
    assert (await game.owner()) == (survivor.name, 2)


async def test_sigterm_hands_the_games_over_at_once(
        spawn: Callable[..., WorkerProcess], pool: asyncpg.Pool, nc: Client,
        prefix: str) -> None:
    game = Game(pool, nc, prefix, "handed")
    # A lease far longer than the test: only a handover can move the game this fast.
    victim, survivor = await _two_workers(spawn, game, lease_seconds="60",
                                          heartbeat_seconds="20")
    victim.signal(signal.SIGTERM)
    stopped = time.monotonic()

    async def adopted() -> bool:
        return (await game.owner())[0] == survivor.name
    await until(adopted, timeout=10)
    assert time.monotonic() - stopped < 5
    assert victim.proc.wait(10) == 0
    await game.finished()
    assert '"handed_over"' in victim.text()


async def test_a_finished_game_reaches_the_ratings_service(
        spawn: Callable[..., WorkerProcess], pool: asyncpg.Pool, nc: Client,
        prefix: str, game_db: str) -> None:
    """Four people leave at once; the bots finish the rated game; ratings moves."""
    worker = spawn("w1")
    spawn("ratings", service="ratings")
    names = Names(prefix)
    people = ("ann", "bob", "cy", "di")
    reply = await send_until_answered(nc, names.game_create, CreateGame(
        game_id="rated", command_id="create", rules=replace(TWO_HANDS, max_hands=1),
        players=people, rated=True))
    assert reply.ok
    for seat in range(4):
        left = await send_until_answered(nc, names.game_command("rated"), GameRequest(
            game_id="rated", command_id=f"leave-{seat}", command=cmd.LeaveSeat(seat=seat),
            player_id=people[seat]))
        assert left.ok
    game = Game(pool, nc, prefix, "rated")

    async def over() -> bool:
        events = [r.event for r in await game.store.read("rated")]
        return bool(events) and isinstance(events[-1], GameEnded)
    await until(over, timeout=30)
    ended = [r.event for r in await game.store.read("rated")][-1]
    assert isinstance(ended, GameEnded) and ended.rated and ended.players == people
    conn = await asyncpg.connect(game_db)
    try:
        async def rated() -> list[asyncpg.Record]:
            return await conn.fetch("SELECT player_id, rating FROM ratings.ratings"
                                    " ORDER BY player_id")
        rows = await until(rated, timeout=15)
        assert [r["player_id"] for r in rows] == sorted(people)
        if ended.winner is not None:
            assert {r["rating"] for r in rows} != {1500}
    finally:
        await conn.close()
    metrics = worker.metrics()
    # By kind: four people left their seats, the bots bid and played the one hand.
    for origin, kind, count in (("player", "LeaveSeat", 4), ("bot", "PlaceBid", 4),
                                ("bot", "PlayCard", 52)):
        assert value(metrics, "spades_game_commands_total", origin=origin, result="ok",
                     kind=kind) == count
        assert value(metrics, "spades_game_command_seconds_count", origin=origin,
                     kind=kind) == count
    for name in ("spades_game_live_games", "spades_game_adoptions_total"):
        assert name in metrics
    # No log line carries the shuffle seed or a dealt hand.
    text = worker.text()
    assert ended.seed and ended.seed not in text
    for dealt in [r.event for r in await game.store.read("rated")]:
        if isinstance(dealt, HandDealt):
            assert not any(",".join(h) in text or '", "'.join(h) in text or
                           '","'.join(h) in text for h in dealt.hands)
