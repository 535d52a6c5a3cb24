"""Two versions side by side: every bus message carries its schema label, a reader reads
a newer version ignoring what it does not know, and what it cannot read is a typed error
(``unsupported_version``), never a crash (schemas/versions/__init__.py)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import ClassVar

import msgspec
import pytest
from nats.aio.client import Client
from nats.aio.msg import Msg
from websockets.asyncio.client import connect
from websockets.asyncio.server import ServerConnection, serve

from schemas import commands, versions, ws
from schemas.bus import StatusReply, StatusRequest
from schemas.gamebus import GameRequest
from schemas.tournaments import commands as tcommands
from schemas.tournaments.api import TournamentRequest
from services.lobby.edge.socket import decode_error
from services.platform import bus, connection
from services.platform.busclient import BusClient
from services.platform.events import EventRegistry, NewerEvent
from spades_client import GameConnection


@pytest.fixture
async def nc(nats_url: str) -> AsyncIterator[Client]:
    client = await connection.connect(nats_url, "versions-test")
    yield client
    await client.drain()


def test_a_label_names_the_body_and_the_command_it_carries() -> None:
    request = GameRequest(game_id="g", command_id="c", command=commands.PlayCard(seat=1,
                                                                                 card="AS"))
    assert versions.label(request) == "GameRequest/1 PlayCard/1"
    cancel = TournamentRequest(tournament_id="t", command=tcommands.Cancel(by="org"))
    assert versions.label(cancel) == "TournamentRequest/1 Cancel/1"  # a generic one too
    assert versions.parse("GameRequest/1 PlayCard/3") == {"GameRequest": 1, "PlayCard": 3}
    assert versions.beyond("GameRequest/1 PlayCard/3") == ["PlayCard/3 (this code reads up "
                                                           "to 1)"]
    assert versions.beyond("CardSwapped/1") == ["CardSwapped/1 (an unknown type)"]
    assert versions.beyond(None) == []  # written before versions were carried: all v1
    assert versions.known("GameEnded") == 3  # an event's VERSION
    assert versions.known("bid") == 1  # a frame's v


async def test_requests_and_replies_carry_their_labels_and_a_newer_request_is_read(
        nc: Client, nats_prefix: str) -> None:
    heard: list[Msg] = []
    group = f"{nats_prefix}.ver{uuid.uuid4().hex[:6]}"

    async def status(req: StatusRequest) -> StatusReply:
        return StatusReply(service="t", instance="i", version="1", echo=req.echo)

    svc = await bus.serve(nc, service="t", version="1.0.0", group=group,
                          endpoints=[bus.Endpoint("status", StatusRequest, status)])
    tap = await nc.subscribe(f"{group}.>", cb=_keeper(heard))
    try:
        assert (await bus.request(nc, f"{group}.status", StatusRequest(echo="a"),
                                  StatusReply)).echo == "a"
        assert heard[0].headers == {versions.HEADER: "StatusRequest/1"}
        # A newer writer's request with a field this code does not know: read without it.
        newer = msgspec.msgpack.encode({"echo": "b", "loud": True})
        msg = await nc.request(f"{group}.status", newer, timeout=5,
                               headers={versions.HEADER: "StatusRequest/2"})
        assert msg.headers == {versions.HEADER: "StatusReply/1"}
        assert msgspec.msgpack.decode(msg.data, type=StatusReply).echo == "b"
        # One whose shape this code cannot read: a typed refusal, not a 400 nor a crash.
        changed = msgspec.msgpack.encode({"echo": ["now", "a", "list"]})
        msg = await nc.request(f"{group}.status", changed, timeout=5,
                               headers={versions.HEADER: "StatusRequest/2"})
        assert (msg.headers or {}).get("Nats-Service-Error-Code") == versions.CODE
        msg = await nc.request(f"{group}.status", changed, timeout=5)  # no label: a bad one
        assert (msg.headers or {}).get("Nats-Service-Error-Code") == "400"
    finally:
        await tap.unsubscribe()
        await svc.stop()


def _keeper(heard: list[Msg]) -> Callable[[Msg], Awaitable[None]]:
    async def keep(msg: Msg) -> None:
        heard.append(msg)
    return keep


async def test_a_reply_a_newer_replier_wrote_that_cannot_be_read_is_a_typed_error(
        nc: Client, nats_prefix: str) -> None:
    subject = f"{nats_prefix}.newer{uuid.uuid4().hex[:6]}"

    async def newer_replier(msg: Msg) -> None:
        await msg.respond(msgspec.msgpack.encode({"service": 7}))  # nats-py has no headers here
    sub = await nc.subscribe(subject, cb=newer_replier)
    try:
        with pytest.raises(msgspec.ValidationError):  # no label: a bug, and stays one
            await bus.request(nc, subject, StatusRequest(), StatusReply)
    finally:
        await sub.unsubscribe()

    async def labelled(msg: Msg) -> None:
        await nc.publish(msg.reply, msgspec.msgpack.encode({"service": 7}),
                         headers={versions.HEADER: "StatusReply/2"})
    sub = await nc.subscribe(subject, cb=labelled)
    try:
        with pytest.raises(bus.RemoteError) as err:
            await bus.request(nc, subject, StatusRequest(), StatusReply)
        assert err.value.code == versions.CODE
        assert "StatusReply/2 (this code reads up to 1)" in err.value.description
    finally:
        await sub.unsubscribe()


async def test_a_publication_carries_its_label(nc: Client, nats_prefix: str) -> None:
    subject = f"{nats_prefix}.pub{uuid.uuid4().hex[:6]}"
    heard: list[Msg] = []
    sub = await nc.subscribe(subject, cb=_keeper(heard))
    await BusClient(nc).publish(subject, StatusRequest(echo="x"))
    await nc.flush()
    await sub.unsubscribe()
    assert [m.headers for m in heard] == [{versions.HEADER: "StatusRequest/1"}]


class Marked(msgspec.Struct, frozen=True, tag=True, tag_field="type", kw_only=True):
    VERSION: ClassVar[int] = 2
    name: str
    note: str = ""  # added by version 2: an older one reads with the default


def test_events_of_another_version_read_by_the_compatibility_rule() -> None:
    registry = EventRegistry([Marked])
    older = msgspec.msgpack.encode({"type": "Marked", "name": "a"})
    assert registry.decode("Marked", 1, older) == Marked(name="a")
    newer = msgspec.msgpack.encode({"type": "Marked", "name": "b", "colour": "red"})
    assert registry.decode("Marked", 3, newer) == Marked(name="b")
    unreadable = msgspec.msgpack.encode({"type": "Marked", "full_name": "c"})
    with pytest.raises(NewerEvent, match=r"Marked/3 \(this code reads up to 2\)"):
        registry.decode("Marked", 3, unreadable)
    with pytest.raises(versions.UnreadableVersion):
        registry.from_builtins("Marked", 3, {"full_name": "c"})


def test_a_newer_client_frame_is_read_or_answered_unsupported_version() -> None:
    decoder = msgspec.json.Decoder(ws.ClientMessage)
    read = decoder.decode(b'{"type": "ping", "v": 2, "nonce": "n"}')
    assert read == ws.Ping(v=2, nonce="n")  # nothing in it this gateway does not know
    for text, code in ((b'{"type": "ping", "v": 2, "nonce": "n", "echo": 1}', versions.CODE),
                       (b'{"type": "ping", "nonce": "n", "echo": 1}', "bad_field"),
                       (b'{"type": "ping", "v": 1, "nonce": "n", "echo": 1}', "bad_field")):
        with pytest.raises(msgspec.ValidationError) as exc:
            decoder.decode(text)
        assert decode_error(exc.value, text).code == code
    encoded = msgspec.json.encode(ws.Pong(nonce="n", at=1))
    assert msgspec.json.decode(encoded)["v"] == 1  # every frame says its version


async def test_the_client_passes_over_a_frame_type_it_does_not_know() -> None:
    """A newer server's frames on a real socket: an unknown type is passed over, a newer
    version of a known type reads without its new field."""
    sent = ['{"type": "weather", "v": 1, "sky": "clear"}',
            '{"type": "pong", "v": 2, "nonce": "n", "at": 5, "region": "eu"}']

    async def newer_server(conn: ServerConnection) -> None:
        for text in sent:
            await conn.send(text)
        await conn.wait_closed()

    async with serve(newer_server, "127.0.0.1", 0) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        game = GameConnection(f"ws://127.0.0.1:{port}", "token", "g")
        game.conn = await connect(f"ws://127.0.0.1:{port}")
        try:
            assert await game._recv() == ws.Pong(v=2, nonce="n", at=5)
            assert game.received == 1
        finally:
            await game.close()
