"""A writer or consumer process for crash tests: run with SPADES_FAULT set, it dies there.

Configured by environment: DATABASE_URL, NATS_URL, MODE (append, publish,
group, relay or consume), STREAM, COMMAND_ID, SUBJECT_BASE, JS_STREAM, DURABLE
and, for publish and group, EXPECTED (the stream's version before the append).
``publish`` appends as a game worker does: the writer publishes its events
after the commit and its relay deletes their rows. ``group`` does the same for
two streams (STREAM and STREAM with a ``b``) in one group commit. Prints one
JSON line when it gets to the end alive.
"""

from __future__ import annotations

import asyncio
import json
import os

import asyncpg

from services.platform import bus, connection
from services.platform.busclient import BusClient
from services.platform.consumer import Consumer
from services.platform.events import EventRegistry
from services.platform.eventstore import EventStore
from services.platform.eventstore.groupcommit import GroupCommit
from services.platform.eventstore.outbox import OutboxRelay, Publisher
from tests.services.platform.sample_events import Counted, Sample


async def tally(conn: asyncpg.Connection, env: object) -> None:
    await conn.execute("INSERT INTO tally (stream, version) VALUES ($1, $2)",
                       env.stream, env.version)  # type: ignore[attr-defined]


async def main() -> None:
    env = os.environ
    pool = await asyncpg.create_pool(env["DATABASE_URL"], min_size=1, max_size=4,
                                     server_settings={"search_path": "contract,public"})
    assert pool is not None
    out: dict[str, object] = {}
    mode = env["MODE"]
    if mode == "append":
        store = EventStore(pool, EventRegistry(Sample))
        result = await store.append(env["STREAM"], 0, [Counted(n=1), Counted(n=2)],
                                    env["COMMAND_ID"])
        out = {"first": result.first_version, "last": result.last_version,
               "duplicate": result.duplicate}
    else:
        nc = await connection.connect(env["NATS_URL"], "fault-writer")
        client = BusClient(nc)
        js = client.js
        base = env["SUBJECT_BASE"]
        relay = OutboxRelay(pool, client, lambda stream, kind: f"{base}.{stream}.{kind}")
        if mode == "publish":
            publisher = Publisher(client, lambda stream, kind: f"{base}.{stream}.{kind}", relay)
            store = EventStore(pool, EventRegistry(Sample), publish=publisher)
            expected = int(env["EXPECTED"])
            result = await store.append(env["STREAM"], expected,
                                        [Counted(n=expected + 1), Counted(n=expected + 2)],
                                        env["COMMAND_ID"])
            await publisher.settled()
            out = {"first": result.first_version, "last": result.last_version,
                   "duplicate": result.duplicate, "forgotten": await relay.forget_published()}
        elif mode == "group":
            publisher = Publisher(client, lambda stream, kind: f"{base}.{stream}.{kind}", relay)
            group = GroupCommit(EventStore(pool, EventRegistry(Sample), publish=publisher),
                                window=0.05)
            expected = int(env["EXPECTED"])
            results = await asyncio.gather(*(
                group.append(stream, expected, [Counted(n=expected + 1),
                                                Counted(n=expected + 2)], env["COMMAND_ID"])
                for stream in (env["STREAM"], env["STREAM"] + "b")))
            await publisher.settled()
            out = {"results": [[r.first_version, r.last_version, r.duplicate] for r in results],
                   "batches": group.batches, "forgotten": await relay.forget_published()}
        elif mode == "relay":
            out = {"published": await relay.drain()}
        elif mode == "consume":
            ours = f"{env['SUBJECT_BASE']}.{env['STREAM']}.>"
            spec = bus.ConsumerSpec(env["JS_STREAM"], env["DURABLE"], ours, ack_wait=1.0,
                                    max_deliver=5)
            consumer = Consumer(client, pool, spec, tally)
            await bus.ensure_consumer(client, spec)
            sub = await js.pull_subscribe_bind(spec.durable, spec.stream)
            outcomes = await consumer.applier.process(await sub.fetch(10, timeout=2))
            out = {"outcomes": outcomes}
        await nc.drain()
    await pool.close()
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
