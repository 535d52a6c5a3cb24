"""The bus as services use it: typed bodies in and out, and the platform's own errors.

DESIGN rule 10: services never see nats types. Everything a service does on the
bus (ask and wait for a reply, publish, listen, follow a JetStream subject from its
first message, publish to JetStream once, answer requests on a subject of its
own) goes through ``BusClient``, whose bodies are msgspec Structs. What can go
wrong in the broker (no responder, a timeout, the connection gone) is one
exception, ``Unavailable``; an error reply is ``bus.RemoteError`` with the
replier's code. A handler refuses with ``Refused`` (a stable code and a plain
description). ``tests/test_import_rules.py`` holds that only ``services/platform``
imports nats.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import msgspec
import nats.errors
import nats.js.errors
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.js.api import DeliverPolicy
from nats.micro.request import Request, ServiceError

from schemas.bus import EventEnvelope
from services.platform import bus, logs

T = TypeVar("T", bound=msgspec.Struct)
_encoder = msgspec.msgpack.Encoder()
_log = logs.get("bus")

# What the client library raises when a request or publication cannot be carried now: no
# responder (no stream, for JetStream), no answer in time, the connection closed, draining
# or still reconnecting. Anything else (a bad subject, a body past the payload limit) is a
# bug, and stays one.
_AWAY: tuple[type[BaseException], ...] = (
    nats.errors.NoRespondersError, nats.errors.TimeoutError, TimeoutError,
    nats.errors.ConnectionClosedError, nats.errors.ConnectionDrainingError,
    nats.errors.ConnectionReconnectingError, nats.errors.StaleConnectionError,
    nats.errors.OutboundBufferLimitError, nats.errors.NoServersError,
    nats.errors.FlushTimeoutError, nats.errors.UnexpectedEOF, nats.js.errors.NoStreamResponseError,
    nats.js.errors.ServiceUnavailableError, ConnectionError)


class Unavailable(Exception):
    """The bus could not carry a request or a publication now (no responder, a
    timeout, the connection gone): nothing says it was applied; ask again later."""

    def __init__(self, subject: str, reason: str) -> None:
        super().__init__(f"{subject}: {reason}")
        self.subject, self.reason = subject, reason


class Refused(ServiceError):
    """A request handler's refusal: its stable code and a plain description become
    the error reply (``bus.RemoteError`` at the requester)."""

    def __init__(self, code: str, description: str) -> None:
        super().__init__(code, description)


class Listening:
    """A subscription a service holds: ``unsubscribe`` ends it (and never raises)."""

    def __init__(self, sub: Any) -> None:
        self._sub = sub

    async def unsubscribe(self) -> None:
        with contextlib.suppress(Exception):
            await self._sub.unsubscribe()


class Following(Listening):
    """A JetStream subject's messages from its first, in order, then live: ``caught_up``
    is set once the history is in."""

    def __init__(self) -> None:
        super().__init__(None)
        self.caught_up = asyncio.Event()

    async def stop(self) -> None:
        await self.unsubscribe()


class BusClient:
    """One service's handle on the bus."""

    def __init__(self, nc: Client) -> None:
        self.nc = nc

    async def request(self, subject: str, body: msgspec.Struct, reply_type: type[T],
                      timeout: float) -> T:
        """Ask and wait for the reply; ``bus.RemoteError`` for an error reply,
        ``Unavailable`` when nobody answered."""
        try:
            return await bus.request(self.nc, subject, body, reply_type, timeout=timeout)
        except _AWAY as exc:
            raise Unavailable(subject, type(exc).__name__) from None

    async def publish(self, subject: str, body: msgspec.Struct | bytes) -> None:
        """Fire and forget (a note, a chat line); ``Unavailable`` when the connection
        cannot take it."""
        data = body if isinstance(body, bytes) else _encoder.encode(body)
        try:
            await self.nc.publish(subject, data)
        except _AWAY as exc:
            raise Unavailable(subject, type(exc).__name__) from None

    async def flush(self) -> None:
        """Wait until what was published has left this process."""
        try:
            await self.nc.flush()
        except _AWAY as exc:
            raise Unavailable("flush", type(exc).__name__) from None

    async def publish_once(self, subject: str, body: msgspec.Struct | bytes,
                           msg_id: str) -> None:
        """Store on JetStream, at most once per ``msg_id`` within the stream's duplicate
        window; ``Unavailable`` when the stream did not acknowledge it."""
        data = body if isinstance(body, bytes) else _encoder.encode(body)
        try:
            await self.nc.jetstream().publish(subject, data, headers={"Nats-Msg-Id": msg_id})
        except _AWAY as exc:
            raise Unavailable(subject, type(exc).__name__) from None

    async def listen(self, subject: str, kind: type[T],
                     handler: Callable[[str, T], Awaitable[None]]) -> Listening:
        """Plain publications of one type, with the subject each came on. Undecodable
        ones are dropped: a sender's bug never stops the others."""
        decoder = msgspec.msgpack.Decoder(kind)

        async def on_msg(msg: Msg) -> None:
            try:
                body = decoder.decode(msg.data)
            except (msgspec.DecodeError, msgspec.ValidationError):
                return
            await handler(msg.subject, body)

        return Listening(await self.nc.subscribe(subject, cb=on_msg))

    async def listen_raw(self, subject: str,
                         handler: Callable[[bytes], Awaitable[None]]) -> Listening:
        """Publications whose body is plain bytes (a worker's instance name, say)."""
        async def on_msg(msg: Msg) -> None:
            await handler(msg.data)

        return Listening(await self.nc.subscribe(subject, cb=on_msg))

    async def answer(self, subject: str, endpoint: bus.Endpoint) -> Listening:
        """Answer requests on a subject of this process's own (not a services API
        endpoint), with the same decoding and error replies as every endpoint."""
        handle = bus.responder(endpoint)

        async def on_msg(msg: Msg) -> None:
            await handle(Request(msg))

        return Listening(await self.nc.subscribe(subject, cb=on_msg))

    async def follow(self, subject: str,
                     handler: Callable[[EventEnvelope], None]) -> Following:
        """Every stored event envelope on ``subject`` from the first, then live, in
        order (an ordered consumer: history and live events come the same way, without
        gaps the client library does not repair). Undecodable envelopes are logged and
        skipped."""
        decoder = msgspec.msgpack.Decoder(EventEnvelope)
        following = Following()

        async def on_msg(msg: Msg) -> None:
            try:
                env = decoder.decode(msg.data)
            except (msgspec.DecodeError, msgspec.ValidationError):
                _log.error("undecodable_envelope", subject=msg.subject)
            else:
                handler(env)
            if following.caught_up.is_set():
                return  # live: no need to parse each message's metadata again
            with contextlib.suppress(Exception):
                if msg.metadata.num_pending == 0:
                    following.caught_up.set()

        try:
            sub = await self.nc.jetstream().subscribe(
                subject, cb=on_msg, ordered_consumer=True, deliver_policy=DeliverPolicy.ALL)
            following._sub = sub
            info = await sub.consumer_info()
        except _AWAY as exc:
            await following.unsubscribe()
            raise Unavailable(subject, type(exc).__name__) from None
        if info.num_pending == 0 and (info.delivered is None or not info.delivered.consumer_seq):
            following.caught_up.set()  # nothing stored yet: a stream about to begin
        return following
