"""The bus as services see it: typed bodies, and the platform's errors instead of nats'."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import pytest
from nats.aio.client import Client

from schemas.bus import EventEnvelope, StatusReply, StatusRequest
from services.platform import bus, connection
from services.platform.busclient import BusClient, Refused, Unavailable


@pytest.fixture
async def nc(nats_url: str) -> AsyncIterator[Client]:
    client = await connection.connect(nats_url, "busclient-test")
    yield client
    await client.drain()


async def test_a_request_nobody_answers_is_unavailable(nc: Client, nats_prefix: str) -> None:
    with pytest.raises(Unavailable):
        await BusClient(nc).request(f"{nats_prefix}.nobody.{uuid.uuid4().hex}",
                                    StatusRequest(), StatusReply, timeout=0.5)


async def test_a_request_on_a_closed_connection_is_unavailable(nats_url: str,
                                                               nats_prefix: str) -> None:
    closed = await connection.connect(nats_url, "busclient-closed")
    await closed.close()
    with pytest.raises(Unavailable):
        await BusClient(closed).request(f"{nats_prefix}.x", StatusRequest(), StatusReply,
                                        timeout=0.5)
    with pytest.raises(Unavailable):
        await BusClient(closed).publish(f"{nats_prefix}.x", StatusRequest())


async def test_a_refusal_reaches_the_requester_with_its_code(nc: Client,
                                                             nats_prefix: str) -> None:
    async def status(req: StatusRequest) -> StatusReply:
        raise Refused("seat_taken", "that seat is taken")

    subject = f"{nats_prefix}.own.{uuid.uuid4().hex}"
    client = BusClient(nc)
    listening = await client.answer(subject, bus.Endpoint("status", StatusRequest, status))
    try:
        with pytest.raises(bus.RemoteError) as err:
            await client.request(subject, StatusRequest(), StatusReply, timeout=2)
        assert (err.value.code, err.value.description) == ("seat_taken", "that seat is taken")
    finally:
        await listening.unsubscribe()


async def test_listening_gets_typed_bodies_and_drops_undecodable_ones(
        nc: Client, nats_prefix: str) -> None:
    subject = f"{nats_prefix}.heard.{uuid.uuid4().hex}"
    client = BusClient(nc)
    heard: asyncio.Queue[tuple[str, StatusRequest]] = asyncio.Queue()

    async def on(subj: str, body: StatusRequest) -> None:
        await heard.put((subj, body))

    listening = await client.listen(subject, StatusRequest, on)
    try:
        await client.publish(subject, b"\xc1not msgpack")
        await client.publish(subject, StatusRequest(echo="hi"))
        assert await asyncio.wait_for(heard.get(), 2) == (subject, StatusRequest(echo="hi"))
    finally:
        await listening.unsubscribe()


async def test_publishing_once_where_no_stream_listens_is_unavailable(
        nc: Client, nats_prefix: str) -> None:
    env = EventEnvelope(stream="s", version=1, position=0, type="T", schema_version=1,
                        event_id="e", occurred_at_ms=0, correlation_id=None, causation_id=None,
                        body=b"")
    with pytest.raises(Unavailable):
        await BusClient(nc).publish_once(f"{nats_prefix}.nostream.{uuid.uuid4().hex}", env,
                                         msg_id="m-1")
