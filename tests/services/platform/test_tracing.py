"""Traces across the bus: off by default (no header, no span), and when on a request's
context travels in its headers to the replier's span, a stored message carries its
``traceparent``, a direct subscription's handler runs in the message's trace, and a
log line written inside a span carries its ids. Against the suite's real NATS."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator

import msgspec
import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from schemas import versions
from services.platform import bus, tracing
from services.platform.busclient import BusClient
from services.platform.connection import NatsClient
from tests.waiting import until


class Ask(msgspec.Struct):
    n: int


class Told(msgspec.Struct):
    n: int


@pytest.fixture
async def client(nats_url: str) -> AsyncIterator[BusClient]:
    nc = NatsClient()
    await nc.connect(nats_url)
    yield BusClient(nc)
    await nc.close()


def _subject(prefix: str) -> str:
    return f"{prefix}.tracing.{uuid.uuid4().hex[:8]}"


async def _double(req: Ask) -> Told:
    return Told(n=req.n * 2)


async def test_off_by_default_nothing_is_added(client: BusClient, nats_prefix: str) -> None:
    assert not tracing.on() and tracing.headers() is None and tracing.current() is None
    subject, seen = _subject(nats_prefix), []

    async def answer(msg: object) -> None:
        seen.append(getattr(msg, "headers", None))
        await client.nc.publish(getattr(msg, "reply", ""), msgspec.msgpack.encode(Told(n=1)))

    await client.nc.subscribe(subject, cb=answer)
    await client.request(subject, Ask(n=1), Told, timeout=5)
    assert seen == [{versions.HEADER: "Ask/1"}]  # its schema label, and no trace context
    with tracing.span("nothing") as got:
        assert got is None
    assert tracing.from_raw(b"NATS/1.0\r\ntraceparent: x\r\n\r\n") is None


async def test_a_requests_trace_reaches_the_repliers_span(
        spans: InMemorySpanExporter, client: BusClient, nats_prefix: str) -> None:
    subject = _subject(nats_prefix)
    await client.answer(subject, bus.Endpoint("double", Ask, _double))
    with tracing.span("outer") as outer:
        assert outer is not None
        assert (await client.request(subject, Ask(n=2), Told, timeout=5)).n == 4
    async def answered() -> bool:
        return any(s.name == "double" for s in spans.get_finished_spans())

    await until(answered)
    by_name = {s.name: s for s in spans.get_finished_spans()}
    trace_id = outer.get_span_context().trace_id
    assert {by_name[n].context.trace_id for n in ("outer", "request", "double")} == {trace_id}
    request, served = by_name["request"], by_name["double"]
    assert request.parent is not None and request.parent.span_id == by_name["outer"].context.span_id
    assert served.parent is not None and served.parent.span_id == request.context.span_id
    assert served.attributes is not None
    assert served.attributes["messaging.destination.name"] == subject


async def test_a_stored_message_carries_its_traceparent_to_a_direct_handler(
        spans: InMemorySpanExporter, client: BusClient, nats_prefix: str) -> None:
    subject, got = _subject(nats_prefix), []
    handled_in: list[int] = []

    def handler(data: bytes) -> None:
        got.append(data)
        current = tracing.current()
        assert current is not None
        from opentelemetry import trace
        handled_in.append(trace.get_current_span(current).get_span_context().trace_id)

    await client.follow_raw(subject, handler)
    with tracing.span("commit") as commit:
        assert commit is not None
        parent = tracing.traceparent()
    # The plain delivery of a message with the header (as the outbox's unacknowledged path
    # and JetStream's own delivery to a plain subscription both carry it).
    await client.nc.publish(subject, b"one", headers={"traceparent": parent or ""})
    await client.nc.publish(subject, b"two")
    async def both() -> bool:
        return len(got) == 2

    await until(both)
    assert got == [b"one", b"two"]
    trace_id = commit.get_span_context().trace_id
    assert handled_in[0] == trace_id and handled_in[1] != trace_id
    delivered = [s for s in spans.get_finished_spans() if s.name == "deliver"]
    assert len(delivered) == 1 and delivered[0].context.trace_id == trace_id
    assert delivered[0].parent is not None
    assert delivered[0].parent.span_id == commit.get_span_context().span_id


async def test_a_store_puts_each_traceparent_in_its_messages_headers(
        spans: InMemorySpanExporter, client: BusClient, nats_prefix: str) -> None:
    subject, seen = _subject(nats_prefix), []

    async def listen(msg: object) -> None:
        seen.append(getattr(msg, "headers", None))
        reply = getattr(msg, "reply", "")
        await client.nc.publish(reply, json.dumps({"stream": "S", "seq": len(seen)}).encode())

    await client.nc.subscribe(subject, cb=listen)
    with tracing.span("commit"):
        parent = tracing.traceparent()
    acked = await client.store([(subject, b"a", "m1"), (subject, b"b", "m2")], 5,
                               [parent, None])
    assert await asyncio.wait_for(acked, 10) == 2
    assert seen == [{"Nats-Msg-Id": "m1", "traceparent": parent}, {"Nats-Msg-Id": "m2"}]


def test_a_line_written_inside_a_span_carries_its_ids(spans: InMemorySpanExporter) -> None:
    assert tracing.add_ids(None, "info", {"event": "outside"}) == {"event": "outside"}
    with tracing.span("inside") as got:
        assert got is not None
        line = tracing.add_ids(None, "info", {"event": "inside"})
    context = got.get_span_context()
    assert line == {"event": "inside", "trace_id": format(context.trace_id, "032x"),
                    "span_id": format(context.span_id, "016x")}
