"""A gateway's requests to the game workers outlive a worker's lost connection: a
request the worker never received (its NATS node died with it in flight) is sent
again after ``RESEND_AFTER`` seconds, and one nobody could take (the worker between
two connections) a moment later, each under the same body, so a player's command
waits about a second for a node's death, not the whole timeout."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator

import msgspec
import pytest
from nats.aio.client import Client
from nats.aio.msg import Msg

from schemas.gamebus import EventsReply, EventsSince
from schemas.subjects import Names
from services.lobby.clients import gameworkers as games
from services.lobby.clients.gameworkers import GameClient
from services.platform import connection
from services.platform.busclient import BusClient


@pytest.fixture
async def nc(nats_url: str) -> AsyncIterator[Client]:
    client = await connection.connect(nats_url, "test")
    yield client
    await client.close()


async def test_a_request_the_worker_never_got_is_sent_again(nc: Client) -> None:
    names = Names(f"rq{uuid.uuid4().hex[:6]}")
    asked: list[bytes] = []

    async def worker(msg: Msg) -> None:
        asked.append(msg.data)
        if len(asked) > 1:  # the first was lost on the way, as with its node
            await msg.respond(msgspec.msgpack.encode(EventsReply(events=[], version=7)))

    await nc.subscribe(names.game_events_since, cb=worker)
    started = time.monotonic()
    reply = await GameClient(BusClient(nc), names, timeout=10.0).events_since("g1", 3)
    took = time.monotonic() - started
    assert reply.version == 7
    assert len(asked) == 2 and asked[0] == asked[1]
    assert msgspec.msgpack.decode(asked[0], type=EventsSince) == EventsSince(
        game_id="g1", version=3)
    assert games.RESEND_AFTER <= took < games.RESEND_AFTER + 1.0


async def test_a_request_nobody_could_take_is_tried_until_a_worker_is_back(
        nc: Client) -> None:
    names = Names(f"rq{uuid.uuid4().hex[:6]}")
    asking = asyncio.create_task(
        GameClient(BusClient(nc), names, timeout=10.0).events_since("g1", 0))
    await asyncio.sleep(0.3)  # no worker listening: "no responders", tried again
    assert not asking.done()

    async def worker(msg: Msg) -> None:
        await msg.respond(msgspec.msgpack.encode(EventsReply(events=[], version=2)))

    await nc.subscribe(names.game_events_since, cb=worker)
    reply = await asyncio.wait_for(asking, 2.0)
    assert reply.version == 2


async def test_with_no_worker_at_all_a_request_fails_after_a_second_not_the_timeout(
        nc: Client) -> None:
    started = time.monotonic()
    with pytest.raises(games.GameUnavailable):
        await GameClient(BusClient(nc), Names(f"rq{uuid.uuid4().hex[:6]}"),
                         timeout=10.0).events_since("g1", 0)
    assert games.RESEND_AFTER <= time.monotonic() - started < games.RESEND_AFTER + 0.5
