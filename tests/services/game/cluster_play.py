"""People at games on a NATS cluster, and what the cluster's nodes are doing.

Shared by the failover test and the cluster soak in ``tests/bench``: each game
has two people (played here, answering their turn at once with the basic bot's
choice, as a client would send it) and two bot seats, with the turn clocks
running. Every command a person sends is retried under the same id until a
worker answers, as a gateway does, and its send and acknowledgement times are
kept, so the longest wait around a fault can be stated.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

import asyncpg
import msgspec
import nats
import nats.errors
from nats.aio.client import Client
from nats.js import JetStreamContext

from engine import bots
from engine.evolve import fold
from engine.presets import QUICK
from schemas import events as ev
from schemas.gamebus import CreateGame, GameReply, GameRequest
from schemas.rules import Clocks
from schemas.subjects import Names
from services.platform import bus, servers
from services.platform.eventstore import EventStore
from tests.services.game.conftest import REGISTRY, send_until_answered

PEOPLE = ("ann", "bot:basic", "cy", "bot:basic")
PEOPLE_SEATS = (0, 2)
# Short clocks, so a stall longer than a turn would show as a move the clock made.
CLOCKS = Clocks(bank_blocks=0)  # the default turns: the shortest is 5 s
RULES = msgspec.structs.replace(QUICK, clocks=CLOCKS)
SHORTEST_TURN_S = min(CLOCKS.bid_ms, CLOCKS.play_ms, CLOCKS.single_card_ms) / 1000


@dataclass
class Sent:
    game_id: str
    command_id: str
    sent: float  # time.perf_counter()
    acked: float = 0.0
    version: int = 0


@dataclass
class People:
    """Plays the people's seats of some games until each ends."""

    nc: Client
    names: Names
    pool: asyncpg.Pool
    think: float = 0.0  # seconds a person takes before each move
    commands: list[Sent] = field(default_factory=list)

    async def create(self, game_id: str) -> None:
        reply = await send_until_answered(self.nc, self.names.game_create, CreateGame(
            game_id=game_id, command_id=f"create-{game_id}", rules=RULES, players=PEOPLE))
        assert reply.ok, reply

    async def play(self, game_id: str, deadline: float) -> list[ev.Event]:
        """Answer every turn of the people's seats until the game ends."""
        store = EventStore(self.pool, REGISTRY)
        while time.monotonic() < deadline:
            events = [r.event for r in await store.read(game_id)]
            if events and isinstance(events[-1], ev.GameEnded):
                return events  # type: ignore[return-value]
            state = fold(events)  # type: ignore[arg-type]
            seat = next((s for s in PEOPLE_SEATS if state.waiting >> s & 1), None)
            if seat is None:
                await asyncio.sleep(0.02)
                continue
            if self.think:
                await asyncio.sleep(self.think)
            await self.send(game_id, state.version, seat, bots.choose(state, seat))
        raise AssertionError(f"game {game_id} did not end in time")

    async def send(self, game_id: str, version: int, seat: int, command: object) -> None:
        sent = Sent(game_id, f"{game_id}:{version}:{seat}", time.perf_counter())
        request = GameRequest(game_id=game_id, command_id=sent.command_id,
                              player_id=PEOPLE[seat], command=command)  # type: ignore[arg-type]
        while True:
            try:
                reply = await bus.request(self.nc, self.names.game_command(game_id), request,
                                          GameReply, timeout=1.0)
            except (nats.errors.NoRespondersError, nats.errors.TimeoutError,
                    nats.errors.ConnectionReconnectingError):
                await asyncio.sleep(0.05)
                continue
            if reply.ok:
                sent.acked, sent.version = time.perf_counter(), reply.version
                self.commands.append(sent)
                return
            if reply.code in ("busy", "not_owner", "conflict", "unavailable"):
                await asyncio.sleep(0.05)
                continue
            return  # the clock moved first, or the turn passed: read the game again

    def longest_wait(self, since: float, until: float) -> float:
        """The longest a command sent in [since, until), or still waiting at ``since``,
        waited for its acknowledgement: what a player saw of a fault."""
        waits = [c.acked - max(c.sent, since) for c in self.commands
                 if c.sent < until and c.acked >= since]
        return max(waits, default=0.0)


def people_timed_out(events: list[ev.Event]) -> list[ev.Event]:
    """Moves a clock made for a person: a forfeited turn."""
    return [e for e in events if getattr(e, "auto", False)
            and getattr(e, "seat", -1) in PEOPLE_SEATS]


async def stream_leader(js: JetStreamContext, stream: str) -> str:
    info = await js.stream_info(stream)
    assert info.cluster is not None and info.cluster.leader
    return info.cluster.leader


async def meta_leader(cluster: servers.NatsCluster) -> str:
    return await asyncio.to_thread(cluster.wait_for_meta_leader, 30.0)


async def caught_up(js: JetStreamContext, stream: str, timeout: float = 30.0) -> None:
    """Wait until every replica of the stream is current again."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            info = await js.stream_info(stream)
            replicas = info.cluster.replicas if info.cluster else None
            if info.cluster and info.cluster.leader and replicas and len(replicas) == 2 \
                    and all(r.current for r in replicas):
                return
        except (nats.errors.Error, TimeoutError):
            pass
        if time.monotonic() > deadline:
            raise AssertionError(f"stream {stream} never had every replica current")
        await asyncio.sleep(0.2)


@dataclass(frozen=True)
class Outage:
    leader: str  # the node that was killed
    struck: float  # time.perf_counter() at the kill
    caught_up: float  # seconds from the kill until every replica was current again


async def kill_leader(cluster: servers.NatsCluster, js: JetStreamContext, stream: str,
                      which: str, down: float) -> Outage:
    """Kill -9 the leader of ``stream`` (``which`` "stream") or of the meta group
    ("meta"), start it again ``down`` seconds later, and wait until it has caught up."""
    leader = await (stream_leader(js, stream) if which == "stream" else meta_leader(cluster))
    node = cluster.node(leader)
    struck = time.perf_counter()
    node.kill()
    await asyncio.sleep(down)
    await asyncio.to_thread(node.start)
    await caught_up(js, stream, timeout=60)
    await meta_leader(cluster)
    return Outage(leader, struck, time.perf_counter() - struck)


async def connect_quietly(cluster: servers.NatsCluster) -> Client:
    """A connection of the bench's own to every node, riding out the nodes it kills
    without printing each failed reconnection."""
    async def quiet(_: Exception) -> None:
        return None

    return await nats.connect(cluster.url.split(","), max_reconnect_attempts=-1,
                              reconnect_time_wait=0.2, error_cb=quiet)
