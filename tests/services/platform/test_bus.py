"""Contract of the bus: request/reply with typed errors, consumers applying each event once."""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable

import asyncpg
import msgspec
import nats
import nats.js.errors
import pytest
from nats.aio.client import Client
from nats.js.api import StorageType, StreamConfig
from nats.micro.request import ServiceError
from prometheus_client import REGISTRY

from schemas.bus import EventEnvelope, StatusReply, StatusRequest
from services.platform import bus, connection
from services.platform.busclient import BusClient
from services.platform.consumer import Consumer
from tests.waiting import until


@pytest.fixture
async def nc(nats_url: str) -> AsyncIterator[Client]:
    client = await connection.connect(nats_url, "bus-test")
    yield client
    await client.drain()


def envelope(stream: str, version: int) -> bytes:
    return msgspec.msgpack.encode(EventEnvelope(
        stream=stream, version=version, position=version, type="Counted", schema_version=1,
        event_id=str(uuid.uuid4()), occurred_at_ms=0, correlation_id=None, causation_id=None,
        body=b""))


async def test_request_reply_round_trip_and_error_codes(nc: Client, nats_prefix: str) -> None:
    async def status(req: StatusRequest) -> StatusReply:
        if req.echo == "boom":
            raise ServiceError("409", "seat already taken")
        if req.echo == "crash":
            raise RuntimeError("bug")  # its name stays in the log
        return StatusReply(service="t", instance="i", version="1", echo=req.echo)

    group = f"{nats_prefix}.rr{uuid.uuid4().hex[:6]}"
    svc = await bus.serve(nc, service="t", version="0.1.0", group=group,
                          endpoints=[bus.Endpoint("status", StatusRequest, status)])
    try:
        reply = await bus.request(nc, f"{group}.status", StatusRequest(echo="hi"), StatusReply)
        assert reply.echo == "hi"
        with pytest.raises(bus.RemoteError) as err:
            await bus.request(nc, f"{group}.status", StatusRequest(echo="boom"), StatusReply)
        assert (err.value.code, err.value.description) == ("409", "seat already taken")
        with pytest.raises(bus.RemoteError) as err:
            await bus.request(nc, f"{group}.status", StatusRequest(echo="crash"), StatusReply)
        assert err.value.code == "500"
        assert "RuntimeError" not in err.value.description  # the log has it, not the reply
        msg = await nc.request(f"{group}.status", b"\xc1not msgpack", timeout=2)
        assert (msg.headers or {}).get("Nats-Service-Error-Code") == "400"
    finally:
        await svc.stop()


async def test_a_reply_past_the_payload_limit_goes_deflated_or_fails_at_once(
        nc: Client, nats_prefix: str) -> None:
    """A reply larger than a bus message may be is deflated on the way and read back
    whole; one a request could always carry goes as it is; one too large even deflated
    is an error reply at once, not a requester left to its timeout."""
    seen: dict[str, object] = {}
    noise = uuid.uuid4().hex  # text a reply repeats, deflating well

    async def status(req: StatusRequest) -> StatusReply:
        size = {"small": 100, "large": 3 * nc.max_payload}[req.echo.split(":")[0]]
        text = (noise * (size // len(noise) + 1))[:size]
        if req.echo.endswith(":random"):
            text = "".join(f"{b:02x}" for b in random.randbytes(size // 2))
        return StatusReply(service="t", instance="i", version="1", echo=text)

    group = f"{nats_prefix}.big{uuid.uuid4().hex[:6]}"
    svc = await bus.serve(nc, service="t", version="0.1.0", group=group,
                          endpoints=[bus.Endpoint("status", StatusRequest, status)])

    async def reply_headers(echo: str) -> dict[str, str]:
        inbox = nc.new_inbox()
        replies = await nc.subscribe(inbox)
        await nc.publish(f"{group}.status", msgspec.msgpack.encode(StatusRequest(echo=echo)),
                         reply=inbox)
        msg = await replies.next_msg(timeout=5)
        await replies.unsubscribe()
        return dict(msg.headers or {})

    try:
        for echo in ("small", "large"):
            reply = await bus.request(nc, f"{group}.status", StatusRequest(echo=echo),
                                      StatusReply)
            assert len(reply.echo) == (100 if echo == "small" else 3 * nc.max_payload)
            seen[echo] = (await reply_headers(echo)).get(bus.ENCODING)
        assert seen == {"small": None, "large": bus.DEFLATE}
        with pytest.raises(bus.RemoteError) as err:
            await bus.request(nc, f"{group}.status", StatusRequest(echo="large:random"),
                              StatusReply, timeout=30)
        assert err.value.code == "500" and "too large" in err.value.description
    finally:
        await svc.stop()


async def test_declaring_a_stream_twice_is_idempotent(nc: Client, nats_prefix: str) -> None:
    client = BusClient(nc)
    js = client.js
    spec = bus.StreamSpec(f"{nats_prefix}_IDEM", (f"{nats_prefix}.idem.>",), duplicate_window=60)
    await bus.ensure_stream(client, spec)
    await bus.ensure_stream(client, spec)
    info = await js.stream_info(spec.name)
    assert info.config.storage == StorageType.FILE
    assert info.config.duplicate_window == 60


async def test_a_stream_created_after_its_asks_timed_out_is_declared_all_the_same(
        nc: Client, nats_prefix: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A busy cluster places the stream after the API's timeout: the ask is repeated, and
    the repeat finds the stream as asked (an injected fault: the first answers are lost)."""
    client = BusClient(nc)
    js = client.js
    spec = bus.StreamSpec(f"{nats_prefix}_SLOW", (f"{nats_prefix}.slow.>",), duplicate_window=60)
    create, asks = js.add_stream, [0]

    async def answer_lost(config: StreamConfig) -> object:
        asks[0] += 1
        made = await create(config)
        if asks[0] < 3:
            raise nats.errors.TimeoutError
        return made

    monkeypatch.setattr(js, "add_stream", answer_lost)
    await bus.ensure_stream(client, spec)
    assert asks[0] == 3
    assert (await js.stream_info(spec.name)).config.duplicate_window == 60


async def test_a_stream_with_memory_storage_is_refused(nc: Client, nats_prefix: str) -> None:
    client = BusClient(nc)
    js = client.js
    name = f"{nats_prefix}_MEM"
    await js.add_stream(StreamConfig(name=name, subjects=[f"{nats_prefix}.mem.>"],
                                     storage=StorageType.MEMORY))
    with pytest.raises(bus.BusConfigError, match=name):
        await bus.ensure_stream(client, bus.StreamSpec(name, (f"{nats_prefix}.mem.>",), 60))


class Lane:
    """A stream and a consumer of it; ``whole``: the consumer tries each fetch whole
    (a batch handler) before message by message."""

    def __init__(self, nc: Client, pool: asyncpg.Pool, prefix: str, whole: bool) -> None:
        tag = uuid.uuid4().hex[:8]
        self.client = BusClient(nc)
        self.js = self.client.js
        self.pool = pool
        self.base = f"{prefix}.bus{tag}"
        self.spec = bus.ConsumerSpec(f"{prefix}_BUS{tag}", f"d{tag}", f"{self.base}.>",
                                     ack_wait=2.0, max_deliver=3)
        self.applied: list[tuple[str, int]] = []
        self.failures: dict[int, int] = {}
        self.whole = whole
        self.runs: list[int] = []  # the length of each run the batch handler applied
        self.before: Callable[[list[EventEnvelope]], Awaitable[None]] | None = None

    async def setup(self) -> None:
        await bus.ensure_stream(self.client, bus.StreamSpec(self.spec.stream, (f"{self.base}.>",),
                                                            duplicate_window=60))

    async def handler(self, conn: asyncpg.Connection, env: EventEnvelope) -> None:
        if self.failures.get(env.version, 0) > 0:
            self.failures[env.version] -= 1
            raise RuntimeError(f"transient failure at {env.version}")
        self.applied.append((env.stream, env.version))

    async def batch_handler(self, conn: asyncpg.Connection, envs: list[EventEnvelope]) -> None:
        if any(self.failures.get(env.version, 0) > 0 for env in envs):
            raise RuntimeError("a message of the fetch fails")
        self.applied.extend((env.stream, env.version) for env in envs)
        self.runs.append(len(envs))

    async def run_until(self, condition: Callable[[], Awaitable[bool]],
                        timeout: float = 10.0) -> None:
        consumer = Consumer(self.client, self.pool, self.spec, self.handler, retry_delay=0.05,
                                batch_handler=self.batch_handler if self.whole else None,
                                before=self.before)
        await consumer.start()
        try:
            async with asyncio.timeout(timeout):
                while not await condition():
                    await asyncio.sleep(0.02)
        finally:
            await consumer.stop()

    async def has_applied(self, n: int) -> bool:
        return len(self.applied) >= n

    async def has_dead_letters(self, n: int) -> bool:
        return len(await self.dead_letters()) >= n

    async def dead_letters(self) -> list[asyncpg.Record]:
        return await self.pool.fetch(
            "SELECT version, deliveries, reason FROM dead_letters WHERE consumer = $1"
            " ORDER BY id", self.spec.durable)


@pytest.fixture(params=[False, True], ids=["one by one", "whole fetch"])
async def lane(nc: Client, contract_pool: asyncpg.Pool, nats_prefix: str,
               request: pytest.FixtureRequest) -> Lane:
    made = Lane(nc, contract_pool, nats_prefix, whole=request.param)
    await made.setup()
    return made


async def test_a_duplicate_delivery_is_applied_once(lane: Lane) -> None:
    for _ in range(3):  # no Nats-Msg-Id: JetStream keeps all three copies
        await lane.js.publish(f"{lane.base}.g1", envelope("g1", 1))
    await lane.js.publish(f"{lane.base}.g1", envelope("g1", 2))
    await lane.run_until(lambda: lane.has_applied(2))
    await asyncio.sleep(0.1)
    assert lane.applied == [("g1", 1), ("g1", 2)]


async def test_a_fetch_is_applied_whole_in_delivery_order(nc: Client,
                                                        contract_pool: asyncpg.Pool,
                                                        nats_prefix: str) -> None:
    lane = Lane(nc, contract_pool, nats_prefix, whole=True)
    await lane.setup()
    for version in range(1, 41):
        await lane.js.publish(f"{lane.base}.g1", envelope("g1", version))
    await lane.js.publish(f"{lane.base}.g1", envelope("g1", 7))  # again, in the same fetch
    await lane.run_until(lambda: lane.has_applied(40))
    await asyncio.sleep(0.1)
    assert lane.applied == [("g1", v) for v in range(1, 41)]
    assert max(lane.runs) > 1  # not one call per message
    assert await lane.pool.fetchval(
        "SELECT count(*) FROM consumer_processed WHERE consumer = $1", lane.spec.durable) == 40


async def test_before_sees_each_fetch_with_no_connection_held_and_cannot_stop_it(
        lane: Lane) -> None:
    """``before`` runs ahead of the fetch's transaction (the pool lends nothing to the
    consumer meanwhile) with the fetch's messages; one that fails changes nothing else."""
    seen: list[tuple[str, int]] = []
    held: list[int] = []

    async def before(envs: list[EventEnvelope]) -> None:
        held.append(lane.pool.get_size() - lane.pool.get_idle_size())
        seen.extend((env.stream, env.version) for env in envs)
        if (envs[0].stream, envs[0].version) == ("g1", 1):
            raise RuntimeError("the other service is away")

    lane.before = before
    for version in (1, 2, 3):
        await lane.js.publish(f"{lane.base}.g1", envelope("g1", version))
    await lane.run_until(lambda: lane.has_applied(3))
    assert lane.applied == [("g1", v) for v in (1, 2, 3)]
    assert seen[:1] == [("g1", 1)] and sorted(set(seen)) == lane.applied
    assert set(held) == {0}


async def test_a_failing_handler_is_retried_by_redelivery(lane: Lane) -> None:
    lane.failures[1] = 2
    await lane.js.publish(f"{lane.base}.g1", envelope("g1", 1))
    await lane.run_until(lambda: lane.has_applied(1))
    assert lane.applied == [("g1", 1)]
    assert await lane.dead_letters() == []
    redelivered = REGISTRY.get_sample_value("spades_consumer_redelivered_total",
                                            {"consumer": lane.spec.durable})
    assert redelivered is not None and redelivered >= 2  # after each of the two failures


async def test_a_failing_handler_in_a_batch_retries_alone(lane: Lane) -> None:
    """The messages of one fetch share a transaction; each has its own savepoint."""
    lane.failures[2] = 1
    for version in (1, 2, 3):
        await lane.js.publish(f"{lane.base}.g1", envelope("g1", version))
    await lane.run_until(lambda: lane.has_applied(3))
    await asyncio.sleep(0.1)
    assert sorted(lane.applied) == [("g1", 1), ("g1", 2), ("g1", 3)]  # none applied twice
    assert await lane.pool.fetchval(
        "SELECT count(*) FROM consumer_processed WHERE consumer = $1", lane.spec.durable) == 3


async def test_a_message_failing_every_delivery_goes_to_the_dead_letter_table(
        lane: Lane) -> None:
    lane.failures[1] = 99
    await lane.js.publish(f"{lane.base}.g1", envelope("g1", 1))
    await lane.js.publish(f"{lane.base}.g1", envelope("g1", 2))
    await lane.run_until(lambda: lane.has_dead_letters(1))
    letters = await lane.dead_letters()
    assert [(r["version"], r["deliveries"]) for r in letters] == [(1, 3)]
    assert "transient failure" in letters[0]["reason"]
    assert lane.applied == [("g1", 2)]


async def test_a_poison_message_is_dead_lettered_and_the_consumer_goes_on(lane: Lane) -> None:
    await lane.js.publish(f"{lane.base}.junk", b"\xc1 not an envelope")
    await lane.js.publish(f"{lane.base}.g1", envelope("g1", 1))
    await lane.run_until(lambda: lane.has_applied(1))
    letters = await lane.dead_letters()
    assert len(letters) == 1 and letters[0]["reason"].startswith("undecodable")
    assert lane.applied == [("g1", 1)]


async def test_consumer_config_is_asserted(nc: Client, lane: Lane) -> None:
    await bus.ensure_consumer(lane.client, lane.spec)
    info = await lane.js.consumer_info(lane.spec.stream, lane.spec.durable)
    assert info.config.max_deliver == 3 and info.config.ack_wait == 2.0


async def test_unreachable_nats_is_one_clear_error() -> None:
    with pytest.raises(connection.BusUnavailable, match=r"cannot reach NATS at nats://127\.0\.0\.1:1"):
        await connection.connect_once("nats://127.0.0.1:1", "probe", timeout=0.5)


async def test_nats_client_is_real(nats_url: str) -> None:
    client = await nats.connect(nats_url)
    assert client.is_connected
    await client.close()


async def test_the_consumer_outlives_a_lost_database(nc: Client, database_url: str,
                                                     nats_prefix: str) -> None:
    pool = await asyncpg.create_pool(database_url, min_size=1, max_size=2,
                                     server_settings={"search_path": "contract"})
    assert pool is not None
    lane = Lane(nc, pool, nats_prefix, whole=False)
    await lane.setup()
    consumer = Consumer(lane.client, pool, lane.spec, lane.handler)
    await consumer.start()
    try:
        await pool.close()  # every transaction now fails
        await lane.js.publish(f"{lane.base}.g1", envelope("g1", 1))
        await lane.js.publish(f"{lane.base}.junk", b"\xc1")
        await asyncio.sleep(1.0)
        assert consumer.running
        assert lane.applied == []
    finally:
        await consumer.stop()


async def test_a_handler_slower_than_the_ack_wait_is_cut_off_and_dead_lettered(
        nc: Client, contract_pool: asyncpg.Pool, nats_prefix: str) -> None:
    lane = Lane(nc, contract_pool, nats_prefix, whole=False)
    lane.spec = bus.ConsumerSpec(lane.spec.stream, lane.spec.durable, lane.spec.filter_subject,
                                 ack_wait=0.5, max_deliver=2)
    await lane.setup()

    async def slow(conn: asyncpg.Connection, env: EventEnvelope) -> None:
        await conn.execute("SELECT pg_sleep(5)")

    lane.handler = slow  # type: ignore[method-assign]
    await lane.js.publish(f"{lane.base}.g1", envelope("g1", 1))
    await lane.run_until(lambda: lane.has_dead_letters(1))
    (letter,) = await lane.dead_letters()
    assert letter["deliveries"] == 2 and "Timeout" in letter["reason"]


async def test_a_read_just_after_a_cluster_write_waits_out_a_passing_not_found(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A node that has not applied the meta leader's assignment yet answers 404 for a
    moment: the read is tried again; a 404 that stays is raised."""
    waited: list[float] = []

    async def sleep(delay: float) -> None:  # the clock, not the broker
        waited.append(delay)

    monkeypatch.setattr(bus.asyncio, "sleep", sleep)
    tries = 0

    async def settling() -> str:
        nonlocal tries
        tries += 1
        if tries < 3:
            raise nats.js.errors.NotFoundError(code=404, err_code=10059,
                                               description="stream not found")
        return "info"

    assert await bus._settled(settling) == "info" and tries == 3

    async def gone() -> str:
        raise nats.js.errors.NotFoundError(code=404, description="stream not found")

    with pytest.raises(nats.js.errors.NotFoundError):
        await bus._settled(gone)
    assert 2.5 < sum(waited) < 4  # about three seconds of trying, then the 404 stands


async def test_a_consumer_s_lag_is_what_its_stream_still_holds_for_it(
        nc: Client, contract_pool: asyncpg.Pool, nats_prefix: str) -> None:
    lane = Lane(nc, contract_pool, nats_prefix, whole=False)
    await lane.setup()
    for version in range(1, 11):
        await lane.js.publish(f"{lane.base}.g1", envelope("g1", version))

    def lag() -> float | None:
        return REGISTRY.get_sample_value("spades_consumer_pending_messages",
                                         {"consumer": lane.spec.durable})

    seen: list[tuple[int, float | None]] = []  # each fetch's size, and the lag it left

    async def before(envs: list[EventEnvelope]) -> None:
        seen.append((len(envs), lag()))

    consumer = Consumer(lane.client, lane.pool, lane.spec, lane.handler, batch=4, before=before)
    await consumer.start()
    try:
        await until(lambda: lane.has_applied(10))
    finally:
        await consumer.stop()
    left = 10
    for size, pending in seen:
        left -= size
        assert pending == left
    assert left == 0 and lag() == 0 and len(seen) >= 3
