"""Connecting to NATS: failing fast at start-up, riding out a lost server once up.

A service that cannot reach the broker when it starts says so in one line and
exits; one that loses it later reconnects forever (to another node of a cluster
within seconds), since its games and consumers must outlive a broker restart.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any

import nats
import nats.aio.client
import nats.errors
import nats.js.api
from nats.aio.client import NO_RESPONDERS_STATUS, Client
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription

from services.platform import jsacks, logs, tracing

_log = logs.get("bus")


class BusUnavailable(RuntimeError):
    pass


_SPACE = re.compile(r"\s")  # what ``str.isspace`` calls a space, anywhere in a name


class DirectClient(nats.aio.client.Client):
    """nats-py's client, reading message headers the way it does, only faster, and
    handing a subscription's messages and a request's reply to plain code as they are
    read.

    Every game event reaches every gateway that follows its game with its
    ``Nats-Msg-Id`` header, and the library's own reading looks at each character
    of each header name through a generator: a few per cent of a gateway's CPU in
    profiles. This reads the same lines into the same names and values
    (``tests/services/platform/test_headers.py`` holds the two to each other).

    The library hands each message to a subscription's callback through a queue and
    a task of the subscription's own: a message object, a queue put and get and a
    task switch per message, about a tenth of a gateway's CPU for its followed
    games. ``subscribe_direct`` calls a plain function with the message's bytes from
    the connection's reading itself, in the order read.

    A ``flush`` (PING, then wait for the server's PONG) means that the server has read
    everything written before it. The library writes its PING to the socket at once,
    while subscriptions and publications wait in its buffer for its flusher task: a
    PONG could come back before the server had seen a subscription made just before
    (a request sent then found no responder). ``_send_ping`` writes that buffer first.

    A request (a gateway sends one per command) is the library's, leaner: its reply
    is handed over from the reading as well, its token is a counter (the library
    reads two random bytes from the system per request), and its timeout one timer
    instead of ``asyncio.wait_for``'s. What a caller sees is the same: the reply,
    ``nats.errors.NoRespondersError``, or ``nats.errors.TimeoutError``
    (``tests/services/platform/test_natsclient.py``).

    Each private method of the library replaced or called here is fingerprinted in
    ``tests/services/platform/test_library_internals.py``, which fails first when an
    upgrade changes one of them."""

    def __init__(self) -> None:
        super().__init__()
        self._direct: dict[int, Callable[[bytes], None]] = {}
        self._asked = 0  # the last request's (or stored message's) token
        self._reply_sids: set[int] = set()
        self._replies: dict[bytes, asyncio.Future[Msg]] = {}

    @property
    def reading(self) -> bool:
        """The connection's reading is alive. nats-py's reading stops for good on an
        exception it does not expect, while ``is_connected`` still says True: readiness
        asks this too, so that such a process is restarted rather than left deaf."""
        return self._reading_task is not None and not self._reading_task.done()

    async def _send_ping(self, future: asyncio.Future[Any] | None = None) -> None:
        # The flusher's own write, done now and in its order: what waits in the buffer
        # reaches the server ahead of the PING whose PONG says it was read.
        if self._pending_data_size > 0 and self.is_connected and self._transport is not None:
            self._transport.writelines(self._pending[:])
            self._pending = []
            self._pending_data_size = 0
        await super()._send_ping(future)

    async def request(self, subject: str, payload: bytes = b"", timeout: float = 0.5,
                      old_style: bool = False, headers: dict[str, Any] | None = None) -> Msg:
        if old_style:
            return await super().request(subject, payload, timeout, old_style, headers)
        if self.is_draining_pubs:
            raise nats.errors.ConnectionDrainingError
        if not self._resp_sub_prefix:
            await self._init_request_sub()
        prefix = self._resp_sub_prefix
        assert prefix is not None
        self._asked += 1
        token = b"%x" % self._asked
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Msg] = loop.create_future()
        self._replies[token] = future
        try:
            await self.publish(subject, payload, reply=(prefix + token).decode(),
                               headers=headers)
            timer = loop.call_later(timeout, _time_out, future)
            try:
                msg = await future
            finally:
                timer.cancel()
        finally:
            del self._replies[token]
        if msg.headers and msg.headers.get(nats.js.api.Header.STATUS) == NO_RESPONDERS_STATUS:
            raise nats.errors.NoRespondersError
        return msg

    async def _init_request_sub(self) -> None:
        # The library's reply subscription (its prefix, one subscription for all replies),
        # its messages handed to `_on_reply` from the reading.
        prefix = bytearray(self._inbox_prefix)
        prefix.extend(b".")
        prefix.extend(self._nuid.next())
        prefix.extend(b".")
        sub = await self.subscribe(prefix.decode() + "*")
        self._reply_sids.add(sub._id)
        self._resp_sub_prefix = prefix

    async def _on_reply(self, sid: int, subject: bytes, data: bytes, headers: bytes) -> None:
        token = subject.rpartition(b".")[2]
        if self._taken(token, data, headers):
            return
        future = self._replies.get(token)
        if future is not None and not future.done():
            hdr = await self._process_headers(headers)
            future.set_result(self._build_message(sid, subject, b"", data, hdr))

    async def subscribe_direct(self, subject: str,
                               handler: Callable[[bytes], None]) -> Subscription:
        """A subscription whose messages' bodies go to ``handler`` as they are read. It
        must not block: it runs inside the connection's reading. An exception it
        raises is logged and the next message handed over all the same."""
        sub = await self.subscribe(subject)
        self._direct[sub._id] = handler
        while not sub._pending_queue.empty():  # read while the subscription was sent
            handler(sub._pending_queue.get_nowait().data)
        return sub

    def _remove_sub(self, sid: int, max_msgs: int = 0) -> None:
        self._direct.pop(sid, None)
        self._reply_sids.discard(sid)
        super()._remove_sub(sid, max_msgs)

    async def _process_msg(self, sid: int, subject: bytes, reply: bytes, data: bytes,
                           headers: bytes) -> None:
        handler = self._direct.get(sid)
        if handler is None and sid not in self._reply_sids:
            await super()._process_msg(sid, subject, reply, data, headers)
            return
        self.stats["in_msgs"] += 1
        self.stats["in_bytes"] += len(data)
        if handler is None:
            await self._on_reply(sid, subject, data, headers)
            return
        try:
            if headers and tracing.on():
                _delivered(handler, subject, data, headers)
            else:
                handler(data)
        except Exception:
            # Nothing may escape into the library's reading: it stops reading for good on
            # an exception (the connection still looks up), so not even the log's own.
            with contextlib.suppress(Exception):
                _log.exception("subscription_handler_failed",
                               subject=subject.decode("utf-8", "replace"))

    def _taken(self, token: bytes, data: bytes, headers: bytes) -> bool:
        """A reply someone other than a request waits for (``NatsClient``'s acks)."""
        return False


def _delivered(handler: Callable[[bytes], None], subject: bytes, data: bytes,
               headers: bytes) -> None:
    """A message read under a trace (an event its publisher traced): handled inside a
    span of that trace, so a gateway's delivery of a move to its sockets is one."""
    parent = tracing.from_raw(headers)
    if parent is None:
        handler(data)
        return
    with tracing.span("deliver", tracing.SpanKind.CONSUMER, parent,
                      {"messaging.destination.name": subject.decode("utf-8", "replace")}):
        handler(data)


class NatsClient(DirectClient):
    """The services' NATS client: ``DirectClient``, and ``store``, which puts messages on
    JetStream and counts their acknowledgements down in one future per call, a game
    worker's commit at a time. The library's ``publish_async`` builds a future, a done
    callback, a semaphore wait and a token of random bytes per message, reads each
    acknowledgement through a subscription task and ``json.loads``, and a caller then
    gathers the futures in a task of its own: about a sixth of a game worker's CPU in
    profiles. Its acknowledgements come back on the requests' reply subscription."""

    def __init__(self) -> None:
        super().__init__()
        self._acks = jsacks.Acks()

    @property
    def storing(self) -> int:
        """Messages handed to JetStream by ``store`` and not yet acknowledged."""
        return self._acks.waiting

    async def store(self, messages: Iterable[tuple[str, bytes, str]], timeout: float,
                    traces: Sequence[str | None] | None = None) -> asyncio.Future[int]:
        """Publish each (subject, payload, message id) for JetStream to store, in order.
        The future holds how many JetStream stored anew (the others were duplicates of
        their message id inside the stream's window) once it acknowledged every one;
        or the first refusal (``nats.js.errors.NoStreamResponseError`` when no stream
        takes the subject, an ``APIError``); or ``nats.errors.TimeoutError`` when some
        are still unacknowledged after ``timeout`` seconds. ``traces``, when given, holds
        each message's ``traceparent`` header (or None), in the same order."""
        if self.is_closed:
            raise nats.errors.ConnectionClosedError
        if self.is_draining_pubs:
            raise nats.errors.ConnectionDrainingError
        if not self._resp_sub_prefix:
            await self._init_request_sub()
        assert self._resp_sub_prefix is not None
        prefix = bytes(self._resp_sub_prefix)
        stored = jsacks.Stored(asyncio.get_running_loop().create_future())
        try:
            for i, (subject, payload, msg_id) in enumerate(messages):
                if len(payload) > self._max_payload:
                    raise nats.errors.MaxPayloadError
                if not self.is_connected and (
                        self._max_pending_size <= 0
                        or len(payload) + self._pending_data_size > self._max_pending_size):
                    raise nats.errors.OutboundBufferLimitError
                self._asked += 1
                token = b"%x" % self._asked
                parent = traces[i] if traces else None
                header = (b"NATS/1.0\r\nNats-Msg-Id: %s\r\n\r\n" % msg_id.encode()
                          if parent is None else
                          b"NATS/1.0\r\nNats-Msg-Id: %s\r\ntraceparent: %s\r\n\r\n"
                          % (msg_id.encode(), parent.encode()))
                self._acks.expect(stored, token)
                self.stats["out_msgs"] += 1
                self.stats["out_bytes"] += len(payload)
                await self._send_command(b"HPUB %s %s%s %d %d\r\n%s%s\r\n" % (
                    subject.encode(), prefix, token, len(header),
                    len(header) + len(payload), header, payload))
        except BaseException:
            stored.future.cancel()  # the caller gets the exception, not the future
            self._acks.settle(stored)
            raise
        self._acks.sent(stored, timeout)
        if self._flush_queue is not None and self._flush_queue.empty():
            await self._flush_pending()
        return stored.future

    def _taken(self, token: bytes, data: bytes, headers: bytes) -> bool:
        return self._acks.take(token, data, headers)


def _time_out(future: asyncio.Future[Msg]) -> None:
    if not future.done():
        future.set_exception(nats.errors.TimeoutError())


# A server that stops answering without closing the connection (paused, or cut off
# by the network) is left after this many unanswered pings this far apart: the client
# then moves to another node of the cluster within a few seconds, under the shortest
# turn clock, instead of the library's default of minutes.
PING_SECONDS = 1.0
PINGS_OUTSTANDING = 1
RECONNECT_TIMEOUT = 1.0


async def connect(url: str, name: str, *, timeout: float = 3.0) -> Client:
    """Connect, failing fast at start-up but reconnecting forever once up."""
    servers = [u.strip() for u in url.split(",") if u.strip()]
    connected = False

    errors: list[Exception] = []

    async def on_error(exc: Exception) -> None:
        if connected:
            _log.warning("nats_error", error=str(exc))
        else:
            errors.append(exc)

    async def on_closed() -> None:
        # Closed, not reconnecting: the server threw us out (a protocol error) or we
        # gave up. /healthz now fails so that an orchestrator restarts the process.
        if connected and nc.last_error is not None:  # not our own close or drain
            _log.error("nats_closed", error=repr(nc.last_error))

    try:
        # At start-up, try each server a couple of times, then say which URL failed.
        nc = await _connected(NatsClient(), servers, name=name, connect_timeout=timeout,
                              allow_reconnect=True, max_reconnect_attempts=2,
                              reconnect_time_wait=0.3, error_cb=on_error,
                              closed_cb=on_closed, ping_interval=PING_SECONDS,
                              max_outstanding_pings=PINGS_OUTSTANDING)
    except (OSError, nats.errors.Error, TimeoutError) as exc:
        cause = errors[-1] if errors else exc
        reason = getattr(cause, "strerror", None) or str(cause) or type(cause).__name__
        raise BusUnavailable(f"cannot reach NATS at {url}: {reason}") from None
    # Up: from now on ride out broker restarts instead of dying.
    nc.options["allow_reconnect"] = True
    nc.options["max_reconnect_attempts"] = -1
    nc.options["reconnect_time_wait"] = 0.5
    # A paused node still completes the TCP handshake and then says nothing: give up on
    # it soon and try the next node.
    nc.options["connect_timeout"] = min(timeout, RECONNECT_TIMEOUT)
    connected = True
    return nc


def on_reconnected(nc: Client, callback: Callable[[], Awaitable[None]]) -> None:
    """Run ``callback`` too each time ``nc`` is connected again: what a plain
    subscription missed while the connection was away is to be asked for then."""
    before = nc._reconnected_cb

    async def both() -> None:
        if before is not None:
            await before()
        await callback()

    nc._reconnected_cb = both


async def connect_once(url: str, name: str, timeout: float = 3.0) -> Client:
    """Like `connect`, but gives up after one round of servers: for CLI checks."""
    servers = [u.strip() for u in url.split(",") if u.strip()]
    errors: list[Exception] = []

    async def on_error(exc: Exception) -> None:
        errors.append(exc)

    try:
        return await asyncio.wait_for(
            _connected(NatsClient(), servers, name=name, connect_timeout=timeout,
                       allow_reconnect=False, max_reconnect_attempts=0, error_cb=on_error),
            timeout * 2)
    except (OSError, nats.errors.Error, TimeoutError) as exc:
        cause = errors[-1] if errors else exc
        reason = getattr(cause, "strerror", None) or str(cause) or type(cause).__name__
        raise BusUnavailable(f"cannot reach NATS at {url}: {reason}") from None


async def _connected(nc: Client, servers: list[str], **options: Any) -> Client:
    await nc.connect(servers, **options)
    return nc


async def probe(url: str, name: str, timeout: float = 1.0) -> None:
    """``BusUnavailable`` unless NATS at ``url`` answers: a check before relying on it."""
    nc = await connect_once(url, name, timeout=timeout)
    await nc.close()
