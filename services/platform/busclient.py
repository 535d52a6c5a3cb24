"""The bus as services use it: typed bodies in and out, and the platform's own errors.

Services never see nats types (docs/architecture.md, rule 10). Everything a service does on the
bus (ask and wait for a reply, publish, listen, hear of a reconnection, publish
to JetStream once, answer requests on a subject of its own) goes through
``BusClient``, whose bodies are msgspec Structs. What can go wrong in the broker
(no responder, a timeout, the connection gone) is one exception, ``Unavailable``;
an error reply is ``bus.RemoteError`` with the replier's code. A handler refuses
with ``Refused`` (a stable code and a plain description).
``tests/test_import_rules.py`` holds that only ``services/platform`` imports nats.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any, TypeVar

import msgspec
import nats.errors
import nats.js.errors
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.micro.request import Request, ServiceError

from schemas import versions
from services.platform import bus, connection, logs, tracing

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


def _headers(body: msgspec.Struct | bytes,
             more: dict[str, str] | None = None) -> dict[str, str] | None:
    """A typed body's schema label (schemas/versions.py) beside ``more``; plain bytes
    carry only ``more``."""
    if isinstance(body, bytes):
        return more
    return versions.headers(body, more)


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


class Instance(msgspec.Struct, frozen=True):
    """A service instance's answer to ``$SRV.PING``; ``bus.serve`` puts the subject
    group of its endpoints and its instance id in the metadata."""

    name: str
    id: str
    version: str
    metadata: dict[str, str] | None = None


_instance = msgspec.json.Decoder(Instance)


class BusClient:
    """One service's handle on the bus. The connection (``nc``) and its JetStream
    context (``js``) are for the platform's own modules (streams, consumers, the
    outbox), which take this client; no service reads them."""

    def __init__(self, nc: Client) -> None:
        if not isinstance(nc, connection.NatsClient):  # what store and follow_raw stand on
            raise TypeError("a BusClient takes the services' connection (connection.connect)")
        self.nc = nc
        self.js = nc.jetstream()

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
            await self.nc.publish(subject, data, headers=_headers(body, tracing.headers()))
        except _AWAY as exc:
            raise Unavailable(subject, type(exc).__name__) from None

    def on_reconnected(self, callback: Callable[[], Awaitable[None]]) -> None:
        """Run ``callback`` each time the connection is back after a loss: what a plain
        subscription missed meanwhile is to be asked for then."""
        connection.on_reconnected(self.nc, callback)

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
            await self.js.publish(subject, data,
                                  headers=_headers(body, {"Nats-Msg-Id": msg_id}))
        except _AWAY as exc:
            raise Unavailable(subject, type(exc).__name__) from None

    async def store(self, messages: Iterable[tuple[str, bytes, str]], timeout: float,
                    traces: Sequence[str | None] | None = None) -> asyncio.Future[int]:
        """Hand each (subject, payload, message id) to JetStream, in order, at once;
        the future holds how many it stored anew once it acknowledged every one
        (``connection.NatsClient.store``). Raises when the connection cannot take them.
        ``traces`` gives each message its ``traceparent`` header (or none)."""
        return await self.nc.store(messages, timeout, traces)

    @property
    def storing(self) -> int:
        """Messages handed to JetStream and not yet acknowledged."""
        return self.nc.storing

    async def listen(self, subject: str, kind: type[T],
                     handler: Callable[[str, T], Awaitable[None]]) -> Listening:
        """Plain publications of one type, with the subject each came on. Undecodable
        ones are dropped: a sender's bug never stops the others (one a newer version
        wrote that this code cannot read is logged as ``unreadable_version``)."""
        decoder = msgspec.msgpack.Decoder(kind)

        async def on_msg(msg: Msg) -> None:
            try:
                body = decoder.decode(msg.data)
            except (msgspec.DecodeError, msgspec.ValidationError) as exc:
                why = versions.decode_failed(subject, (msg.headers or {}).get(versions.HEADER),
                                             exc)
                if isinstance(why, versions.UnreadableVersion):
                    _log.warning("unreadable_version", subject=msg.subject, error=str(why))
                return
            if tracing.on() and msg.headers and "traceparent" in msg.headers:
                with tracing.span("deliver", tracing.SpanKind.CONSUMER,
                                  tracing.from_headers(msg.headers),
                                  {"messaging.destination.name": msg.subject}):
                    await handler(msg.subject, body)
                return
            await handler(msg.subject, body)

        return Listening(await self.nc.subscribe(subject, cb=on_msg))

    async def listen_raw(self, subject: str,
                         handler: Callable[[bytes], Awaitable[None]]) -> Listening:
        """Publications whose body is plain bytes (a worker's instance name, say)."""
        async def on_msg(msg: Msg) -> None:
            await handler(msg.data)

        return Listening(await self.nc.subscribe(subject, cb=on_msg))

    async def follow_raw(self, subject: str, handler: Callable[[bytes], None]) -> Listening:
        """Publications whose body is plain bytes, handed to a plain function as the
        connection reads them (``connection.NatsClient.subscribe_direct``): for the
        many small messages of a followed game."""
        return Listening(await self.nc.subscribe_direct(subject, handler))

    async def instances(self, wait: float) -> list[Instance]:
        """Every instance on the NATS services API that answers within ``wait`` seconds:
        the API's own discovery (``$SRV.PING``), so no list of services is kept here."""
        got: list[bytes] = []
        inbox = self.nc.new_inbox()
        listening = Listening(await self.nc.subscribe_direct(inbox, got.append))
        try:
            await self.nc.publish("$SRV.PING", b"", reply=inbox)
            await asyncio.sleep(wait)
        finally:
            await listening.unsubscribe()
        out = []
        for data in got:
            with contextlib.suppress(msgspec.DecodeError, msgspec.ValidationError):
                out.append(_instance.decode(data))
        return out

    async def answer(self, subject: str, endpoint: bus.Endpoint) -> Listening:
        """Answer requests on a subject of this process's own (not a services API
        endpoint), with the same decoding and error replies as every endpoint."""
        handle = bus.responder(endpoint, self.nc.max_payload)

        async def on_msg(msg: Msg) -> None:
            await handle(Request(msg))

        return Listening(await self.nc.subscribe(subject, cb=on_msg))

    async def close(self) -> None:
        """Close the connection (a command's, say; a service drains it at shutdown)."""
        await self.nc.close()


async def reach_once(url: str, name: str, timeout: float = 3.0) -> BusClient:
    """A client for a one-off command: ``connection.BusUnavailable`` unless one round
    of the servers at ``url`` answers."""
    return BusClient(await connection.connect_once(url, name, timeout))
