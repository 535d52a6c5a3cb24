"""The services' NATS client: a request answers as nats-py's own does (its reply, no
responders, a timeout), a direct subscription hands every message over in order, and
messages stored on JetStream are counted as it acknowledges them."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator, Callable

import nats
import nats.errors
import nats.js.errors
import pytest
from nats.aio.client import Client
from nats.aio.msg import Msg
from prometheus_client import REGISTRY

from services.platform.busclient import BusClient
from services.platform.connection import DirectClient, NatsClient
from tests.waiting import until


@pytest.fixture
async def asker(nats_url: str) -> AsyncIterator[NatsClient]:
    client = NatsClient()
    await client.connect(nats_url)
    yield client
    await client.close()


@pytest.fixture
async def other(nats_url: str) -> AsyncIterator[Client]:
    """Another party on the bus, of the services' own kind: a plain nats-py client's
    ``flush`` may return before the server has its subscription."""
    client = DirectClient()
    await client.connect(nats_url)
    yield client
    await client.close()


def _subject(prefix: str) -> str:
    return f"{prefix}.natsclient.{uuid.uuid4().hex[:8]}"


async def _until(check: Callable[[], bool]) -> None:
    """``check`` holds within 30 s: the tests share one event loop, so a moment's stall
    of another test's leftovers must not read as a lost message."""
    async def holds() -> bool:
        return check()

    await until(holds, timeout=30.0, every=0.01)


async def test_a_subscription_flushed_is_the_servers_before_the_flush_returns(
        asker: NatsClient, other: Client, nats_prefix: str) -> None:
    """The library writes its PING ahead of the subscriptions still in its buffer, so a
    request sent right after ``subscribe`` and ``flush`` could find no responder."""
    async def echo(msg: Msg) -> None:
        await msg.respond(msg.data)

    for i in range(200):
        subject = _subject(nats_prefix)
        sub = await other.subscribe(subject, cb=echo)
        await other.flush()
        assert (await asker.request(subject, b"%d" % i, timeout=5)).data == b"%d" % i
        await sub.unsubscribe()


async def test_requests_in_flight_together_each_get_their_own_reply(
        asker: NatsClient, other: Client, nats_prefix: str) -> None:
    subject, held = _subject(nats_prefix), []

    async def answer_backwards(msg: Msg) -> None:
        held.append(msg)
        if len(held) == 3:
            for m in reversed(held):
                await m.respond(m.data + b"!")

    await other.subscribe(subject, cb=answer_backwards)
    await other.flush()
    replies = await asyncio.gather(*(asker.request(subject, b"%d" % i, timeout=5)
                                     for i in range(3)))
    assert [r.data for r in replies] == [b"0!", b"1!", b"2!"]
    assert asker._replies == {}


async def test_a_replys_headers_are_read(asker: NatsClient, other: Client,
                                         nats_prefix: str) -> None:
    subject = _subject(nats_prefix)

    async def refuse(msg: Msg) -> None:
        assert msg.reply
        await other.publish(msg.reply, b"", headers={"Nats-Service-Error-Code": "404",
                                                     "Nats-Service-Error": "no such game"})

    await other.subscribe(subject, cb=refuse)
    await other.flush()
    reply = await asker.request(subject, b"", timeout=5)
    assert reply.headers == {"Nats-Service-Error-Code": "404",
                             "Nats-Service-Error": "no such game"}


async def test_nobody_there_nobody_answering_and_a_late_answer(
        asker: NatsClient, other: Client, nats_prefix: str) -> None:
    with pytest.raises(nats.errors.NoRespondersError):
        await asker.request(_subject(nats_prefix), b"", timeout=5)
    subject, held = _subject(nats_prefix), []

    async def hold(msg: Msg) -> None:
        held.append(msg)

    await other.subscribe(subject, cb=hold)
    await other.flush()
    with pytest.raises(nats.errors.TimeoutError):
        await asker.request(subject, b"", timeout=0.2)
    await held[0].respond(b"too late")  # dropped: nobody waits for it any more
    await other.flush()
    await asker.flush()
    assert asker._replies == {}
    waiting = asyncio.create_task(asker.request(subject, b"", timeout=5))
    await _until(lambda: len(held) == 2)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    assert asker._replies == {}


async def test_a_direct_subscription_hands_every_message_over_in_order(
        asker: NatsClient, other: Client, nats_prefix: str) -> None:
    subject, got = _subject(nats_prefix), []

    def handler(data: bytes) -> None:
        if data == b"bad":
            raise ValueError("a handler's own failure")
        got.append(data)

    sub = await asker.subscribe_direct(subject, handler)
    await asker.flush()
    for i in range(200):
        await other.publish(subject, b"bad" if i == 50 else b"%d" % i)
    await other.flush()
    try:
        await _until(lambda: len(got) == 199)  # the failure is logged, the rest handed over
    except AssertionError:
        raise AssertionError(f"{len(got)} of 199 handed over, the last {got[-3:]}; "
                             f"read {asker.stats['in_msgs']} messages in all, reading "
                             f"{asker.reading}, connected {asker.is_connected}") from None
    assert got == [b"%d" % i for i in range(200) if i != 50]
    await sub.unsubscribe()
    await other.publish(subject, b"after")
    await other.flush()
    await asker.flush()
    assert got[-1] == b"199" and asker._direct == {}


async def test_the_bus_client_takes_only_the_services_connection(other: Client) -> None:
    """Storing and following stand on ``NatsClient``: a plain nats-py connection is
    refused when the bus client is made, not at its first publish."""
    with pytest.raises(TypeError, match=r"connection\.connect"):
        BusClient(other)


async def test_a_connection_whose_reading_died_says_so(asker: NatsClient) -> None:
    """nats-py's reading ends for good on an exception it does not expect while the
    connection still looks up; readiness asks ``reading`` for that."""
    assert asker.is_connected and asker.reading
    task = asker._reading_task
    assert task is not None
    task.cancel()  # as an unexpected exception would end it
    with contextlib.suppress(asyncio.CancelledError):
        await task
    assert asker.is_connected and not asker.reading


async def test_storing_counts_what_jetstream_stored_anew_once_all_are_acknowledged(
        asker: NatsClient, nats_prefix: str) -> None:
    subject = _subject(nats_prefix)
    stream = f"{nats_prefix}_STORE{uuid.uuid4().hex[:8]}"
    await asker.jetstream().add_stream(name=stream, subjects=[f"{subject}.>"],
                                       duplicate_window=60)
    first = await asker.store([(f"{subject}.a", b"%d" % i, f"m{i}") for i in range(5)], 10)
    again = await asker.store([(f"{subject}.a", b"x", f"m{i}") for i in (3, 4, 5)], 10)
    assert (await first, await again) == (5, 1)  # m3 and m4 were duplicates
    assert await (await asker.store([], 10)) == 0
    sub = await asker.jetstream().subscribe(f"{subject}.>", ordered_consumer=True)
    got = [(await sub.next_msg(timeout=5)).data for _ in range(6)]
    assert got == [b"0", b"1", b"2", b"3", b"4", b"x"]  # in the order handed over
    assert asker.storing == 0
    await asker.jetstream().delete_stream(stream)


async def test_storing_where_no_stream_is_refused_and_nothing_waits(
        asker: NatsClient, nats_prefix: str) -> None:
    stored = await asker.store([(_subject(nats_prefix), b"x", "m1")] * 2, 10)
    with pytest.raises(nats.js.errors.NoStreamResponseError):
        await stored
    assert asker.storing == 0


async def test_a_refused_or_unreadable_ack_fails_the_call_and_silence_times_out(
        asker: NatsClient, other: Client, nats_prefix: str) -> None:
    refusing, garbled, silent = (_subject(nats_prefix) for _ in range(3))

    async def refuse(msg: Msg) -> None:
        await msg.respond(b'{"error":{"code":400,"err_code":10058,"description":"no"}}')

    async def garble(msg: Msg) -> None:
        await msg.respond(b"not json")

    await other.subscribe(refusing, cb=refuse)
    await other.subscribe(garbled, cb=garble)
    await other.subscribe(silent)
    await other.flush()
    with pytest.raises(nats.js.errors.BadRequestError, match="no"):
        await (await asker.store([(refusing, b"x", "m1")], 10))
    with pytest.raises(nats.js.errors.APIError, match="not an ack"):
        await (await asker.store([(garbled, b"x", "m1")], 10))
    waiting = await asker.store([(silent, b"x", "m1"), (silent, b"y", "m2")], 0.3)
    assert asker.storing == 2
    with pytest.raises(nats.errors.TimeoutError):
        await waiting
    assert asker.storing == 0


def _waits(outcome: str) -> float:
    return REGISTRY.get_sample_value("spades_jetstream_ack_seconds_count",
                                     {"outcome": outcome}) or 0.0


async def test_each_store_call_s_wait_for_jetstream_is_counted_by_outcome(
        asker: NatsClient, other: Client, nats_prefix: str) -> None:
    subject, silent = _subject(nats_prefix), _subject(nats_prefix)
    stream = f"{nats_prefix}_WAITS{uuid.uuid4().hex[:8]}"
    await asker.jetstream().add_stream(name=stream, subjects=[f"{subject}.>"])
    await other.subscribe(silent)
    await other.flush()
    before = {o: _waits(o) for o in ("acked", "refused", "timeout")}
    await (await asker.store([(f"{subject}.a", b"%d" % i, f"w{i}") for i in range(3)], 10))
    with pytest.raises(nats.js.errors.NoStreamResponseError):
        await (await asker.store([(_subject(nats_prefix), b"x", "w1")], 10))
    with pytest.raises(nats.errors.TimeoutError):
        await (await asker.store([(silent, b"x", "w1")], 0.2))
    assert {o: _waits(o) - n for o, n in before.items()} == \
        {"acked": 1, "refused": 1, "timeout": 1}
    await asker.jetstream().delete_stream(stream)
