"""The lobby's outcomes on real NATS and Postgres: the tournaments' LOBBY_MATCHES consumer
waits for the lobby to make its stream, then records a failed ready check as a no-show."""

from __future__ import annotations

import asyncio
import uuid

import asyncpg
import msgspec

from schemas import subjects
from services.platform import bus, connection
from services.platform.busclient import BusClient
from services.platform.consumer import Consumer
from services.tournaments.results import on_match_outcome
from services.tournaments.service import WhenStreamExists
from tests.waiting import until

from .test_calls import _outcome, running
from .test_store import store_on


async def test_the_outcomes_consumer_starts_once_the_lobby_made_the_stream(
        pool: asyncpg.Pool, nats_url: str, nats_prefix: str) -> None:
    store = store_on(pool)
    tid = await running(store)
    names = subjects.Names(f"{nats_prefix}o{uuid.uuid4().hex[:6]}")
    nc = await connection.connect(nats_url, "test")
    client = BusClient(nc)
    js = client.js
    waiting = WhenStreamExists(Consumer(client, pool, bus.ConsumerSpec(
        names.lobby_matches_stream, subjects.TOURNAMENTS_MATCHES,
        names.lobby_matches_of("tournament"), ack_wait=5, max_deliver=3),
        on_match_outcome(store)), retry_seconds=0.1)
    try:
        await waiting.start()
        await asyncio.sleep(0.3)
        assert waiting.running and not waiting.consumer.running  # no stream yet
        await bus.ensure_stream(client, bus.StreamSpec(names.lobby_matches_stream,
                                                       (names.lobby_matches_all,),
                                                       duplicate_window=60))
        env = _outcome(tid, "W1-1", "not_ready", absent=(0,))
        await js.publish(names.lobby_match("tournament", "m"), msgspec.msgpack.encode(env))

        async def recorded() -> bool:
            return (await store.load(tid)).matches["W1-1"].outcome == "away"

        await until(recorded, timeout=15)
        assert waiting.consumer.running
    finally:
        await waiting.stop()
        await nc.close()
