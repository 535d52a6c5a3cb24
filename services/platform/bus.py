"""NATS: connecting, asserting JetStream's configuration, request/reply, consumers.

JetStream is transport, not truth: it fsyncs lazily and has lost acknowledged
writes under faults. So every consumer records what it has applied in its own
Postgres tables, in the same transaction as the side effects, and the broker's
settings that this relies on (file storage, explicit acks, bounded redelivery,
a duplicate window) are checked at start-up rather than assumed.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import asyncpg
import msgspec
import nats
import nats.errors
import nats.js.errors
import structlog
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.js import JetStreamContext
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy, StorageType, StreamConfig
from nats.micro import add_service
from nats.micro.request import Request, ServiceError
from prometheus_client import Counter, Histogram

from schemas.bus import EventEnvelope
from services.platform import db, faults, logs

T = TypeVar("T", bound=msgspec.Struct)

CONSUMED = Counter("spades_consumer_messages_total", "JetStream messages by outcome",
                   ["consumer", "outcome"])
HANDLED = Histogram("spades_request_seconds", "Request handling time", ["endpoint"])

_encoder = msgspec.msgpack.Encoder()
_log = logs.get("bus")


class BusUnavailable(RuntimeError):
    pass


class StreamMissing(LookupError):
    """A consumer's stream does not exist (yet): another service makes it."""


class BusConfigError(RuntimeError):
    """The broker's configuration differs from what the platform relies on."""


class RemoteError(Exception):
    """An error reply from a service: a stable code and a plain description."""

    def __init__(self, code: str, description: str) -> None:
        super().__init__(f"{code}: {description}")
        self.code, self.description = code, description


class BadRequest(ServiceError):
    def __init__(self, description: str) -> None:
        super().__init__("400", description)


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
        nc = await nats.connect(servers, name=name, connect_timeout=timeout,
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
            nats.connect(servers, name=name, connect_timeout=timeout, allow_reconnect=False,
                         max_reconnect_attempts=0, error_cb=on_error), timeout * 2)
    except (OSError, nats.errors.Error, TimeoutError) as exc:
        cause = errors[-1] if errors else exc
        reason = getattr(cause, "strerror", None) or str(cause) or type(cause).__name__
        raise BusUnavailable(f"cannot reach NATS at {url}: {reason}") from None


# --- JetStream streams and consumers, declared and checked --------------------------------


@dataclass(frozen=True)
class StreamSpec:
    name: str
    subjects: tuple[str, ...]
    duplicate_window: float
    replicas: int = 1
    max_age: float = 7 * 24 * 3600.0


async def ensure_stream(js: JetStreamContext, spec: StreamSpec) -> None:
    config = StreamConfig(name=spec.name, subjects=list(spec.subjects), storage=StorageType.FILE,
                          duplicate_window=spec.duplicate_window, num_replicas=spec.replicas,
                          max_age=spec.max_age)
    try:
        await js.add_stream(config)
    except nats.js.errors.BadRequestError:
        try:
            await js.update_stream(config)
        except nats.js.errors.APIError as exc:
            raise BusConfigError(f"JetStream stream {spec.name} exists with another "
                                 f"configuration that cannot be changed: {exc.description}"
                                 ) from None
    info = await js.stream_info(spec.name)
    got = info.config
    problems = []
    if got.storage != StorageType.FILE:
        problems.append(f"storage is {got.storage}, not file")
    if (got.duplicate_window or 0) < spec.duplicate_window:
        problems.append(f"duplicate window {got.duplicate_window}s < {spec.duplicate_window}s")
    if (got.num_replicas or 1) < spec.replicas:
        problems.append(f"{got.num_replicas} replica(s) < {spec.replicas}")
    if set(got.subjects or ()) != set(spec.subjects):
        problems.append(f"subjects {got.subjects} != {list(spec.subjects)}")
    if problems:
        raise BusConfigError(f"JetStream stream {spec.name}: " + "; ".join(problems))


@dataclass(frozen=True)
class ConsumerSpec:
    stream: str
    durable: str
    filter_subject: str
    ack_wait: float
    max_deliver: int
    max_ack_pending: int = 1000


async def ensure_consumer(js: JetStreamContext, spec: ConsumerSpec) -> None:
    config = ConsumerConfig(durable_name=spec.durable, ack_policy=AckPolicy.EXPLICIT,
                            deliver_policy=DeliverPolicy.ALL, filter_subject=spec.filter_subject,
                            ack_wait=spec.ack_wait, max_deliver=spec.max_deliver,
                            max_ack_pending=spec.max_ack_pending)
    await js.add_consumer(spec.stream, config)
    got = (await js.consumer_info(spec.stream, spec.durable)).config
    problems = []
    if got.ack_policy != AckPolicy.EXPLICIT:
        problems.append(f"ack policy is {got.ack_policy}, not explicit")
    if got.max_deliver != spec.max_deliver:
        problems.append(f"max deliver is {got.max_deliver}, not {spec.max_deliver}")
    if abs((got.ack_wait or 0) - spec.ack_wait) > 0.001:
        problems.append(f"ack wait is {got.ack_wait}s, not {spec.ack_wait}s")
    if got.filter_subject != spec.filter_subject:
        problems.append(f"filter is {got.filter_subject}, not {spec.filter_subject}")
    if problems:
        raise BusConfigError(f"JetStream consumer {spec.durable}: " + "; ".join(problems))


# --- Request/reply on the NATS services API ----------------------------------------------


@dataclass(frozen=True)
class Endpoint:
    """A request type and its handler. With ``tasks``, each request is answered in a
    task of its own (kept in that set until answered), so a slow request never holds
    up the next one on the same subscription; without it, one at a time."""

    name: str
    request_type: type[msgspec.Struct]
    handler: Callable[[Any], Awaitable[msgspec.Struct]]
    tasks: set[asyncio.Task[None]] | None = None


async def serve(nc: Client, *, service: str, version: str, group: str,
                endpoints: list[Endpoint], instance: str = "") -> Any:
    """Start a NATS micro service whose endpoints take and return msgspec Structs,
    each at ``<group>.<name>`` in the queue group ``<group>.q``."""
    svc = await add_service(nc, name=service, version=version,
                            metadata={"instance": instance} if instance else None)
    grp = svc.add_group(name=group, queue_group=f"{group}.q")
    for ep in endpoints:
        await grp.add_endpoint(name=ep.name, handler=responder(ep))
    return svc


def responder(ep: Endpoint) -> Callable[[Request], Awaitable[None]]:
    """Decoding and error mapping, once for every request/reply handler.

    A handler receives a decoded request and returns a reply Struct; a request
    that does not decode gets error code 400, a ``ServiceError`` the handler
    raises becomes an error reply with its code and description, anything else
    code 500 (and a log line). Also for plain subscriptions: wrap the message in
    ``nats.micro.request.Request``.
    """
    decoder = msgspec.msgpack.Decoder(ep.request_type)

    async def handle(req: Request) -> None:
        started = time.perf_counter()
        # Bound for the request and the task it starts (a task copies the context). Reset
        # by tokens: ``bound_contextvars`` reads every bound variable first, per request.
        tokens = structlog.contextvars.bind_contextvars(
            endpoint=ep.name, correlation_id=(req.headers or {}).get("Correlation-Id"))
        try:
            try:
                body = decoder.decode(req.data)
            except (msgspec.DecodeError, msgspec.ValidationError) as exc:
                _log.warning("bad_request", endpoint=ep.name, error=str(exc))
                await req.respond_error("400", f"bad request: {exc}")
                return
            if ep.tasks is None:
                await answer(req, body, started)
                return
            task = asyncio.create_task(answer(req, body, started))
            ep.tasks.add(task)
            task.add_done_callback(ep.tasks.discard)
        finally:
            structlog.contextvars.reset_contextvars(**tokens)

    async def answer(req: Request, body: msgspec.Struct, started: float) -> None:
        try:
            try:
                reply = await ep.handler(body)
            except ServiceError as exc:
                await req.respond_error(exc.code, exc.description)
                return
            except db.AWAY as exc:  # "not now": the requester may try again
                _log.warning("handler_database_away", endpoint=ep.name, error=repr(exc))
                await req.respond_error("unavailable", "the store is not answering now")
                return
            except Exception:
                # The log has the exception; the requester (and maybe a client) gets none
                # of its names.
                _log.exception("handler_failed", endpoint=ep.name)
                await req.respond_error("500", "internal error (logged)")
                return
            try:
                await req.respond(_encoder.encode(reply))
            except Exception as exc:  # the connection is going away; the requester retries
                _log.warning("reply_failed", endpoint=ep.name, error=repr(exc))
        finally:
            HANDLED.labels(ep.name).observe(time.perf_counter() - started)

    return handle


async def request(nc: Client, subject: str, body: msgspec.Struct, reply_type: type[T],
                  timeout: float = 5.0) -> T:
    msg = await nc.request(subject, _encoder.encode(body), timeout=timeout)
    headers = msg.headers or {}
    if "Nats-Service-Error-Code" in headers:
        raise RemoteError(headers["Nats-Service-Error-Code"], headers.get("Nats-Service-Error", ""))
    return msgspec.msgpack.decode(msg.data, type=reply_type)


# --- JetStream consumers with their position in Postgres ---------------------------------

Handler = Callable[[asyncpg.Connection, EventEnvelope], Awaitable[None]]
BatchHandler = Callable[[asyncpg.Connection, list[EventEnvelope]], Awaitable[None]]
AfterCommit = Callable[[list[EventEnvelope]], Awaitable[None]]


class Consumer:
    """A durable pull consumer that applies each event once, by (stream, version).

    For every message: record (stream, version) in ``consumer_processed`` (a
    conflict means it was applied before: just ack), then run the handler's side
    effects. The messages of one fetch share one Postgres transaction, each in its
    own savepoint, so a batch costs one commit (one WAL flush) instead of one per
    message, and a handler that fails undoes only its own message. Commit, then
    ack. A crash between commit and ack makes JetStream redeliver, and the record
    makes it a no-op. A handler that fails is retried by redelivery until the last
    allowed delivery, then the message goes to ``dead_letters``; a message that
    does not decode goes there at once and is terminated, never crashing the loop.

    With a ``batch_handler`` a fetch is first tried whole: one statement records it,
    one call applies every fresh message, in delivery order. A few statements per
    fetch instead of a few per message is what lets one copy keep up with a busy
    platform. Should that fail, the fetch is applied again message by message as
    above, so a bad message still fails alone.
    """

    def __init__(self, js: JetStreamContext, pool: asyncpg.Pool, spec: ConsumerSpec,
                 handler: Handler, *, batch: int = 64, retry_delay: float = 0.2,
                 after_commit: AfterCommit | None = None,
                 batch_handler: BatchHandler | None = None) -> None:
        self.js, self.pool, self.spec, self.handler = js, pool, spec, handler
        self.batch, self.retry_delay, self.after_commit = batch, retry_delay, after_commit
        self.batch_handler = batch_handler
        self._decoder = msgspec.msgpack.Decoder(EventEnvelope)
        self._stopping = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """``StreamMissing`` when the stream is not there (yet)."""
        try:
            await ensure_consumer(self.js, self.spec)
        except nats.js.errors.NotFoundError:
            raise StreamMissing(self.spec.stream) from None
        self._sub = await self.js.pull_subscribe_bind(self.spec.durable, self.spec.stream)
        self._task = asyncio.create_task(self._run(), name=f"consumer:{self.spec.durable}")

    async def stop(self) -> None:
        """Finish the message in hand, then stop fetching."""
        self._stopping.set()
        if self._task:
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        with contextlib.suppress(Exception):
            await self._sub.unsubscribe()

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    async def _run(self) -> None:
        while not self._stopping.is_set():
            try:
                msgs = await self._sub.fetch(self.batch, timeout=0.5)
            except (nats.errors.TimeoutError, TimeoutError):
                continue
            except Exception as exc:  # connection trouble: the client reconnects
                if self._stopping.is_set():
                    return
                _log.warning("fetch_failed", consumer=self.spec.durable, error=str(exc))
                await asyncio.sleep(0.5)
                continue
            try:
                await self.process(msgs)
            except Exception as exc:  # Postgres away, say: unacked, JetStream redelivers
                _log.warning("process_failed", consumer=self.spec.durable, error=repr(exc))
                await asyncio.sleep(0.5)

    async def process(self, msgs: list[Msg]) -> list[str]:
        """Apply one fetch of messages; returns each message's outcome, in order."""
        outcomes: dict[int, str] = {}
        good: list[tuple[int, Msg, EventEnvelope]] = []
        for i, msg in enumerate(msgs):
            try:
                good.append((i, msg, self._decoder.decode(msg.data)))
            except (msgspec.DecodeError, msgspec.ValidationError) as exc:
                _log.error("poison_message", consumer=self.spec.durable, subject=msg.subject,
                           error=str(exc))
                await self._dead_letter(msg, None, _deliveries(msg), f"undecodable: {exc}")
                await msg.term()
                outcomes[i] = self._count("poison")
        if good:
            for i, outcome in zip([i for i, _, _ in good], await self._apply(good), strict=True):
                outcomes[i] = outcome
        return [outcomes[i] for i in range(len(msgs))]

    async def _apply(self, batch: list[tuple[int, Msg, EventEnvelope]]) -> list[str]:
        if self.batch_handler is not None and len(batch) > 1:
            try:
                fresh = await self._apply_whole(batch)
            except Exception as exc:  # one by one instead: a bad message fails alone
                _log.warning("batch_failed", consumer=self.spec.durable, size=len(batch),
                             error=repr(exc))
            else:
                return await self._settle(batch, fresh, {})
        return await self._apply_each(batch)

    async def _apply_whole(self, batch: list[tuple[int, Msg, EventEnvelope]]) -> dict[int, bool]:
        async with asyncio.timeout(self.spec.ack_wait * 0.8), self.pool.acquire() as conn, \
                conn.transaction():
            recorded = {(r["stream"], r["version"]) for r in await conn.fetch(
                "INSERT INTO consumer_processed (consumer, stream, version)"
                " SELECT $1, s, v FROM unnest($2::text[], $3::bigint[]) AS x(s, v)"
                " ON CONFLICT DO NOTHING RETURNING stream, version", self.spec.durable,
                [env.stream for _, _, env in batch], [env.version for _, _, env in batch])}
            fresh: dict[int, bool] = {}
            for i, _, env in batch:  # a message delivered twice in one fetch counts once
                key = (env.stream, env.version)
                fresh[i] = key in recorded
                recorded.discard(key)
            assert self.batch_handler is not None
            await self.batch_handler(conn, [env for i, _, env in batch if fresh[i]])
        return fresh

    async def _apply_each(self, batch: list[tuple[int, Msg, EventEnvelope]]) -> list[str]:
        fresh: dict[int, bool] = {}
        failed: dict[int, Exception] = {}
        try:
            # The handlers must finish inside the ack wait, or JetStream hands the same
            # messages to another copy while this one still holds them.
            async with asyncio.timeout(self.spec.ack_wait * 0.8), self.pool.acquire() as conn, \
                    conn.transaction():
                for i, _, env in batch:
                    with structlog.contextvars.bound_contextvars(
                            consumer=self.spec.durable, stream=env.stream, version=env.version,
                            correlation_id=env.correlation_id):
                        try:
                            async with conn.transaction():  # a savepoint
                                fresh[i] = await self._record_and_handle(conn, env)
                        except Exception as exc:
                            failed[i] = exc
        except Exception as exc:  # the whole transaction is lost: every message retries
            fresh.clear()
            failed = {i: exc for i, _, _ in batch}
        return await self._settle(batch, fresh, failed)

    async def _settle(self, batch: list[tuple[int, Msg, EventEnvelope]], fresh: dict[int, bool],
                      failed: dict[int, Exception]) -> list[str]:
        """After the commit: tell ``after_commit``, then ack (or retry) each message."""
        if fresh:
            faults.hit(faults.CONSUMER_AFTER_COMMIT_BEFORE_ACK)
            await self._committed([env for i, _, env in batch if fresh.get(i)])
        out = []
        for i, msg, env in batch:
            if i in failed:
                out.append(await self._failed(msg, env, failed[i]))
            else:
                await msg.ack()
                out.append(self._count("applied" if fresh[i] else "duplicate"))
        return out

    async def _committed(self, applied: list[EventEnvelope]) -> None:
        """Tell ``after_commit`` what was just applied: for what must follow a commit
        and may be lost with a crash (a note to a player), never for state."""
        if self.after_commit is None or not applied:
            return
        try:
            await self.after_commit(applied)
        except Exception as exc:
            _log.warning("after_commit_failed", consumer=self.spec.durable, error=repr(exc))

    async def _record_and_handle(self, conn: asyncpg.Connection, env: EventEnvelope) -> bool:
        fresh = bool(await conn.fetchval(
            "INSERT INTO consumer_processed (consumer, stream, version)"
            " VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING true",
            self.spec.durable, env.stream, env.version))
        if fresh:
            await self.handler(conn, env)
        return fresh

    async def _failed(self, msg: Msg, env: EventEnvelope, exc: Exception) -> str:
        deliveries = _deliveries(msg)
        if deliveries >= self.spec.max_deliver:
            _log.error("dead_letter", consumer=self.spec.durable, stream=env.stream,
                       version=env.version, deliveries=deliveries, error=repr(exc))
            await self._dead_letter(msg, env, deliveries, repr(exc))
            await msg.term()
            return self._count("dead_letter")
        _log.warning("handler_failed", consumer=self.spec.durable, stream=env.stream,
                     version=env.version, deliveries=deliveries, error=repr(exc))
        await msg.nak(delay=self.retry_delay * deliveries)
        return self._count("retry")

    def _count(self, outcome: str) -> str:
        CONSUMED.labels(self.spec.durable, outcome).inc()
        return outcome

    async def _dead_letter(self, msg: Msg, env: EventEnvelope | None, deliveries: int,
                           reason: str) -> None:
        await self.pool.execute(
            "INSERT INTO dead_letters (consumer, subject, stream, version, deliveries, reason,"
            " payload) VALUES ($1, $2, $3, $4, $5, $6, $7)",
            self.spec.durable, msg.subject, env.stream if env else None,
            env.version if env else None, deliveries, reason, msg.data)


def _deliveries(msg: Msg) -> int:
    return msg.metadata.num_delivered or 1
