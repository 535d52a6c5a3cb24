"""Games on a three-node NATS cluster ride out the loss of a node.

With games in play (people's commands arriving, turn clocks running), the node
leading the game events stream is killed outright, then the node leading the
JetStream meta group, then one node is paused for longer than the cluster's
heartbeats (a partition as its peers see it), each brought back before the
next. Every acknowledged command stays, JetStream holds each event once, a
consumer following the stream applies each once, every game ends and
verifies, and no person's turn is lost to a clock. The longest wait for an
acknowledgement around each fault is printed (``-s`` shows it).
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

import asyncpg
from nats.aio.client import Client

from engine import bots
from engine.presets import QUICK
from engine.replay import verify
from engine.state import seats_in
from schemas.bus import EventEnvelope
from schemas.gamebus import GameRequest
from schemas.subjects import Names
from services.lobby.clients.gameworkers import GameClient
from services.platform import bus, connection, servers
from services.platform.busclient import BusClient
from services.platform.consumer import CONSUMED, Consumer
from services.platform.eventstore import EventStore
from tests.services.game.cluster_play import (
    SHORTEST_TURN_S,
    People,
    caught_up,
    kill_leader,
    meta_leader,
    people_timed_out,
    stream_leader,
)
from tests.services.game.conftest import REGISTRY, Harness, WorkerProcess
from tests.waiting import until

DOWN_SECONDS = 3.0
PAUSED_SECONDS = 6.0  # past the heartbeats and past the shortest turn: only leaving the
# paused node for another keeps a person from losing the turn


async def test_games_ride_out_a_killed_stream_leader_a_killed_meta_leader_and_a_paused_node(
        spawn: Callable[..., WorkerProcess], nats_cluster: servers.NatsCluster,
        pool: asyncpg.Pool, contract_pool: asyncpg.Pool, prefix: str) -> None:
    names = Names(prefix)
    stream = names.game_events_stream
    spawn("cw1", nats=nats_cluster.url, js_replicas="3", bot_think_ms="50")
    nc = await connection.connect(nats_cluster.url, "failover-test")
    client = BusClient(nc)
    js = client.js
    applied: Counter[tuple[str, int]] = Counter()

    async def follow(_conn: asyncpg.Connection, env: EventEnvelope) -> None:
        applied[(env.stream, env.version)] += 1

    follower = Consumer(client, contract_pool, bus.ConsumerSpec(
        stream, f"{prefix}-follower", names.game_events_all, ack_wait=5, max_deliver=50),
        follow)
    await follower.start()
    # People take their time while the faults happen, so every game is still in play
    # at the last one, then play out at once.
    people = People(nc, names, pool, think=0.3)
    games = [f"cf{i}" for i in range(4)]
    try:
        for g in games:
            await people.create(g)
        playing = asyncio.gather(*(people.play(g, time.monotonic() + 120) for g in games))
        faults: dict[str, float] = {}
        await asyncio.sleep(1.0)

        for which, what in (("stream", "the game events stream's leader"),
                            ("meta", "the meta group's leader")):
            out = await kill_leader(nats_cluster, js, stream, which, DOWN_SECONDS)
            faults[f"{what} ({out.leader}) killed"] = out.struck

        paused = nats_cluster.node(await stream_leader(js, stream))
        assert paused.process is not None
        faults[f"{paused.server_name} paused {PAUSED_SECONDS:.0f} s"] = time.perf_counter()
        paused.process.send_signal(signal.SIGSTOP)
        try:
            await asyncio.sleep(PAUSED_SECONDS)
        finally:
            paused.process.send_signal(signal.SIGCONT)
        await caught_up(js, stream)
        assert not playing.done(), "the games ended before every fault: make them longer"
        people.think = 0.0
        logs = await playing

        times = [*faults.values(), float("inf")]  # each fault's window ends at the next one
        waits = {what: people.longest_wait(at, min(at + DOWN_SECONDS + 2, times[i + 1]))
                 for i, (what, at) in enumerate(faults.items())}
        for what, wait in waits.items():
            print(f"{what}: longest wait for an acknowledgement {wait:.2f} s "
                  f"(shortest turn {SHORTEST_TURN_S:.0f} s)")
        store = EventStore(pool, REGISTRY)
        for g, events in zip(games, logs, strict=True):
            assert verify(events) is None, g
            assert people_timed_out(events) == [], g
            stored = {r.command_id for r in await store.read(g)}
            assert {c.command_id for c in people.commands if c.game_id == g} <= stored

        expected = {(g, v) for g, events in zip(games, logs, strict=True)
                    for v in range(1, len(events) + 1)}

        async def all_applied() -> bool:
            return expected <= applied.keys()
        await until(all_applied, timeout=30)
        assert set(applied) == expected and set(applied.values()) == {1}
        again = CONSUMED.labels(f"{prefix}-follower", "duplicate")._value.get()
        print(f"{len(expected)} events applied once each; {again:.0f} redelivered and "
              "skipped by (stream, version)")
        # Every event delivered, and the stream holds no more messages than events: none
        # was stored twice (a publish retried across a leader change is deduplicated).
        assert (await js.stream_info(stream)).state.messages == len(expected)

        assert max(waits.values()) < SHORTEST_TURN_S
    finally:
        await follower.stop()
        await nc.close()
        for node in nats_cluster.nodes:  # whatever happened, the next test gets three
            if node.process is not None and node.process.poll() is None:
                node.process.send_signal(signal.SIGCONT)
            elif node.process is None or node.exited:
                node.start()


@dataclass
class Split:
    """A gateway's connection on one node (``doomed``), a game worker on the others."""

    gateway_nc: Client
    doomed: servers.NatsServer
    harness: Harness
    game_id: str


@contextlib.asynccontextmanager
async def split(cluster: servers.NatsCluster, pool: asyncpg.Pool, prefix: str,
                game_id: str) -> AsyncIterator[Split]:
    """One game created by a worker (a manual clock: nothing moves unless a person
    does) away from the gateway's node; the node is started again at the end."""
    await meta_leader(cluster)  # a node an earlier test brought back has rejoined
    gateway_nc = await connection.connect(cluster.url, "gateway-test")
    assert gateway_nc.connected_url is not None
    doomed = next(n for n in cluster.nodes if n.port == gateway_nc.connected_url.port)
    worker_nc = await connection.connect(",".join(n.url for n in cluster.nodes if n is not doomed),
                                  "worker-test")
    harness = Harness(pool, worker_nc, Names(prefix))
    await harness.start()
    try:
        await harness.worker()
        assert (await harness.create(game_id, QUICK, ("a", "b", "c", "d"))).ok
        yield Split(gateway_nc, doomed, harness, game_id)
    finally:
        if doomed.exited or doomed.process is None:
            doomed.start()
        await harness.stop()
        await gateway_nc.close()
        await worker_nc.close()


async def test_a_gateway_whose_node_died_gets_what_was_published_meanwhile(
        nats_cluster: servers.NatsCluster, pool: asyncpg.Pool, prefix: str) -> None:
    """Gateways follow live events on a plain subscription: an event published while
    a gateway's connection was away comes from the worker's store after it is back,
    with no later event to reveal the gap."""
    async with split(nats_cluster, pool, prefix, "cf-gap") as at:
        seen: list[int] = []
        following = await GameClient(BusClient(at.gateway_nc), Names(prefix), 2.0).follow(
            at.game_id, lambda env: seen.append(env.version))
        await asyncio.wait_for(following.caught_up.wait(), 10)
        assert seen[-1] == (await at.harness.state(at.game_id)).version

        at.doomed.kill()
        state = await at.harness.state(at.game_id)
        seat = seats_in(state.waiting)[0]
        reply = await at.harness.send(at.game_id, bots.choose(state, seat), "while-away")
        assert reply.ok

        async def got_it() -> bool:
            return reply.version in seen
        await until(got_it, timeout=15)
        await following.stop()


async def test_a_command_in_flight_when_the_gateways_node_dies_is_sent_again_at_once(
        nats_cluster: servers.NatsCluster, pool: asyncpg.Pool, prefix: str) -> None:
    """A command the gateway's node took and died with is sent again (same id) once the
    gateway is reconnected, instead of waiting out its timeout."""
    async with split(nats_cluster, pool, prefix, "cf-inflight") as at:
        assert at.doomed.process is not None
        state = await at.harness.state(at.game_id)
        seat = seats_in(state.waiting)[0]
        games = GameClient(BusClient(at.gateway_nc), Names(prefix), timeout=10.0)
        at.doomed.process.send_signal(signal.SIGSTOP)  # takes the command, never passes it on
        started = time.monotonic()
        asking = asyncio.create_task(games.command(GameRequest(
            game_id=at.game_id, command_id="in-flight", player_id="abcd"[seat],
            command=bots.choose(state, seat))))  # type: ignore[arg-type]
        await asyncio.sleep(0.2)
        at.doomed.kill()
        reply = await asyncio.wait_for(asking, 12)
        took = time.monotonic() - started
        assert reply.ok and reply.version == state.version + 1
        assert took < 4.0, f"answered {took:.1f} s after it was sent"
