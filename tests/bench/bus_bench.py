"""Bus round trip and JetStream publish rate, next to the same done with bare nats-py.

Request/reply: our typed endpoint (msgpack decode, handler, encode, metrics)
against a bare subscription that echoes bytes. Publishing: the outbox relay
draining committed events (read rows, publish with Nats-Msg-Id, wait for every
ack, delete rows) against bare `publish_async` of the same payloads.
"""

from __future__ import annotations

import asyncio
import time
import uuid

import asyncpg
import msgspec
import nats
from nats.aio.msg import Msg

from schemas.bus import StatusReply, StatusRequest
from services.platform import bus, connection, dbadmin, eventstore, migrations
from services.platform.busclient import BusClient
from services.platform.events import EventRegistry
from services.platform.eventstore import EventStore
from services.platform.eventstore.outbox import OutboxRelay
from services.platform.migrations import MigrationSet
from tests.bench.servers import bench_servers, percentiles

ROUND_TRIPS = 2000
EVENTS = 5000


class Played(msgspec.Struct, frozen=True, tag=True, kw_only=True):
    seat: int
    card: str


async def round_trips(db_url: str, nats_url: str) -> None:
    nc = await nats.connect(nats_url)
    prefix = f"b{uuid.uuid4().hex[:6]}"

    async def status(req: StatusRequest) -> StatusReply:
        return StatusReply(service="bench", instance="1", version="0", echo=req.echo)

    svc = await bus.serve(nc, service="bench", version="0.1.0", group=f"{prefix}.svc",
                          endpoints=[bus.Endpoint("status", StatusRequest, status)])

    async def echo(msg: Msg) -> None:
        await msg.respond(msg.data)

    await nc.subscribe(f"{prefix}.bare", cb=echo)
    payload = msgspec.msgpack.encode(StatusRequest(echo="x" * 32))

    async def bare() -> None:
        await nc.request(f"{prefix}.bare", payload, timeout=5)

    async def ours() -> None:
        await bus.request(nc, f"{prefix}.svc.status", StatusRequest(echo="x" * 32), StatusReply)

    print(f"request/reply, {ROUND_TRIPS} sequential round trips")
    print(f"{'':20}{'req/s':>10}{'p50 ms':>10}{'p99 ms':>10}")
    for label, call in (("bare nats-py", bare), ("typed endpoint", ours)):
        for _ in range(200):
            await call()
        samples = []
        started = time.perf_counter()
        for _ in range(ROUND_TRIPS):
            t = time.perf_counter()
            await call()
            samples.append(time.perf_counter() - t)
        rate = ROUND_TRIPS / (time.perf_counter() - started)
        p50, p99 = percentiles(samples)
        print(f"{label:20}{rate:>10.0f}{p50:>10.3f}{p99:>10.3f}")
    await svc.stop()
    await nc.close()


async def publishing(admin_url: str, nats_url: str) -> None:
    name = f"spades_bench_{uuid.uuid4().hex[:8]}"
    url = await dbadmin.ensure_database(admin_url, name)
    conn = await asyncpg.connect(url)
    await migrations.apply(conn, [MigrationSet("bench", eventstore.MIGRATIONS)])
    await conn.close()
    pool = await asyncpg.create_pool(url, min_size=4, max_size=8,
                                     server_settings={"search_path": "bench"})
    assert pool is not None
    store = EventStore(pool, EventRegistry([Played]))
    for i in range(EVENTS // 50):
        await store.append(f"g{i}", 0, [Played(seat=j % 4, card="AS") for j in range(50)])
    nc = await connection.connect(nats_url, "bus-bench")
    client = BusClient(nc)
    js = client.js
    prefix = f"b{uuid.uuid4().hex[:6]}"
    await bus.ensure_stream(client, bus.StreamSpec(f"{prefix}_PUB", (f"{prefix}.>",), 600))
    body = msgspec.msgpack.encode(Played(seat=1, card="AS"))
    print(f"\nJetStream publish, {EVENTS} events, every ack awaited")
    started = time.perf_counter()
    acks = [await js.publish_async(f"{prefix}.bare.{i}", body,
                                   headers={"Nats-Msg-Id": f"bare:{i}"}) for i in range(EVENTS)]
    await asyncio.gather(*acks)
    bare = EVENTS / (time.perf_counter() - started)
    relay = OutboxRelay(pool, client, lambda stream, kind: f"{prefix}.relay.{stream}.{kind}",
                        batch=500)
    started = time.perf_counter()
    published = await relay.drain()
    ours = published / (time.perf_counter() - started)
    print(f"{'bare nats-py':20}{bare:>10.0f} msg/s")
    print(f"{'outbox relay':20}{ours:>10.0f} msg/s  (incl. reading and deleting outbox rows)")
    await nc.close()
    await pool.close()
    await dbadmin.drop(admin_url, name)


def main() -> None:
    with bench_servers() as (db_url, nats_url):
        asyncio.run(round_trips(db_url, nats_url))
        asyncio.run(publishing(db_url, nats_url))


if __name__ == "__main__":
    main()
