"""JetStream consumers that keep their position in Postgres.

JetStream is transport, not truth: it fsyncs lazily and has lost acknowledged
writes under faults. So every consumer records what it has applied in its own
Postgres tables, in the same transaction as the side effects, and applies each
event once by (stream, version) however often JetStream delivers it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

import asyncpg
import msgspec
import nats.errors
import nats.js.errors
import structlog
from nats.aio.msg import Msg
from prometheus_client import Counter, Gauge

from schemas.bus import EventEnvelope
from services.platform import faults, logs, tracing
from services.platform.bus import ConsumerSpec, StreamMissing, ensure_consumer
from services.platform.busclient import BusClient

CONSUMED = Counter("spades_consumer_messages_total", "JetStream messages by outcome",
                   ["consumer", "outcome"])
LAG = Gauge("spades_consumer_pending_messages", "Messages of its stream a durable consumer has "
            "not been handed yet, as of its last fetch (its lag)", ["consumer"])
REDELIVERED = Counter("spades_consumer_redelivered_total", "Messages a durable consumer was "
                      "handed again (not acknowledged within the ack wait, or a handler failed)",
                      ["consumer"])

_log = logs.get("bus")

Handler = Callable[[asyncpg.Connection, EventEnvelope], Awaitable[None]]
BatchHandler = Callable[[asyncpg.Connection, list[EventEnvelope]], Awaitable[None]]
AfterCommit = Callable[[list[EventEnvelope]], Awaitable[None]]
Before = Callable[[list[EventEnvelope]], Awaitable[None]]


def one_at_a_time(batch: BatchHandler) -> Handler:
    """``batch`` applied to a run of one event: the handler a consumer falls back to when
    a batch fails, so that one event's way is its batch's way."""
    async def handle(conn: asyncpg.Connection, env: EventEnvelope) -> None:
        await batch(conn, [env])

    return handle


class Applier:
    """Applies each event of a fetch once, by (stream, version).

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

    ``before`` sees a fetch's messages ahead of its transaction: what a handler needs
    from another service is asked there, holding no Postgres connection meanwhile. It
    is a hint: a handler that finds nothing asks again itself.
    """

    def __init__(self, pool: asyncpg.Pool, spec: ConsumerSpec, handler: Handler, *,
                 retry_delay: float, after_commit: AfterCommit | None,
                 batch_handler: BatchHandler | None, before: Before | None,
                 span: tuple[str, str] | None = None) -> None:
        self.pool, self.spec, self.handler, self.span = pool, spec, handler, span
        self.retry_delay, self.after_commit = retry_delay, after_commit
        self.batch_handler, self.before = batch_handler, before
        self._decoder = msgspec.msgpack.Decoder(EventEnvelope)

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
                await _dead_letter(self.pool, self.spec.durable, msg, None, _deliveries(msg),
                                   f"undecodable: {exc}")
                await msg.term()
                outcomes[i] = self._count("poison")
        if good and self.before is not None:
            try:
                await self.before([env for _, _, env in good])
            except Exception as exc:  # only a hint: the handlers ask again
                _log.warning("before_failed", consumer=self.spec.durable, error=repr(exc))
        if good:
            applied = await (_traced(self, good) if self.span else self._apply(good))
            for i, outcome in zip([i for i, _, _ in good], applied, strict=True):
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
            await _dead_letter(self.pool, self.spec.durable, msg, env, deliveries, repr(exc))
            await msg.term()
            return self._count("dead_letter")
        _log.warning("handler_failed", consumer=self.spec.durable, stream=env.stream,
                     version=env.version, deliveries=deliveries, error=repr(exc))
        await msg.nak(delay=self.retry_delay * deliveries)
        return self._count("retry")

    def _count(self, outcome: str) -> str:
        CONSUMED.labels(self.spec.durable, outcome).inc()
        return outcome



async def _traced(applier: Applier, batch: list[tuple[int, Msg, EventEnvelope]]) -> list[str]:
    """``applier``'s apply with each message in a span named ``applier.span[0]`` (its
    stream in the attribute ``span[1]``), the child of the span its ``traceparent``
    header names (the command that stored it), from its handing over to its ack: the
    handler and ``after_commit`` work inside it (``tracing.consuming``)."""
    if not tracing.on():
        return await applier._apply(batch)
    assert applier.span is not None
    name, attr = applier.span
    spans = [(env.stream, tracing.start(name, tracing.SpanKind.CONSUMER,
                                        tracing.from_headers(msg.headers), {
                                            attr: env.stream, "event.version": env.version,
                                            "messaging.consumer.name": applier.spec.durable}))
             for _, msg, env in batch]
    token = tracing.CONSUMING.set({stream: tracing.context_of(span)
                                   for stream, span in reversed(spans) if span is not None})
    try:
        return await applier._apply(batch)
    finally:
        tracing.CONSUMING.reset(token)
        for _, span in spans:
            if span is not None:
                span.end()


class Consumer:
    """A durable pull consumer whose messages an ``Applier`` applies each once, by
    (stream, version), a fetch at a time, until it is stopped; trouble reaching NATS or
    Postgres leaves the fetch unacknowledged, and JetStream delivers it again. ``LAG``
    is what a fetch left pending.
    """

    def __init__(self, client: BusClient, pool: asyncpg.Pool, spec: ConsumerSpec,
                 handler: Handler, *, batch: int = 64, retry_delay: float = 0.2,
                 after_commit: AfterCommit | None = None,
                 batch_handler: BatchHandler | None = None, before: Before | None = None,
                 span: tuple[str, str] | None = None) -> None:
        """``span``: (name, attribute) of each message's span while tracing is on."""
        self.client, self.spec, self.batch = client, spec, batch
        self.applier = Applier(pool, spec, handler, retry_delay=retry_delay,
                               after_commit=after_commit, batch_handler=batch_handler,
                               before=before, span=span)
        self._stopping = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """``StreamMissing`` when the stream is not there (yet)."""
        try:
            await ensure_consumer(self.client, self.spec)
        except nats.js.errors.NotFoundError:
            raise StreamMissing(self.spec.stream) from None
        self._sub = await self.client.js.pull_subscribe_bind(self.spec.durable, self.spec.stream)
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
            _note_fetch(self.spec.durable, msgs)
            try:
                await self.applier.process(msgs)
            except Exception as exc:  # Postgres away, say: unacked, JetStream redelivers
                _log.warning("process_failed", consumer=self.spec.durable, error=repr(exc))
                await asyncio.sleep(0.5)

async def forget(conn: asyncpg.Connection, consumer: str) -> None:
    """Forget which events ``consumer`` applied, so that a rebuild applies them all again
    (in the caller's transaction, beside its own reset)."""
    await conn.execute("DELETE FROM consumer_processed WHERE consumer = $1", consumer)


def _note_fetch(consumer: str, msgs: list[Msg]) -> None:
    """What a fetch left pending for ``consumer`` on its stream, and how many of its
    messages came again. A fetch may also end with no message at all (the server's status
    instead), which says nothing of either."""
    if msgs:
        LAG.labels(consumer).set(msgs[-1].metadata.num_pending)
        again = sum(msg.metadata.num_delivered > 1 for msg in msgs)
        if again:
            REDELIVERED.labels(consumer).inc(again)


async def _dead_letter(pool: asyncpg.Pool, consumer: str, msg: Msg, env: EventEnvelope | None,
                       deliveries: int, reason: str) -> None:
    await pool.execute(
        "INSERT INTO dead_letters (consumer, subject, stream, version, deliveries, reason,"
        " payload) VALUES ($1, $2, $3, $4, $5, $6, $7)",
        consumer, msg.subject, env.stream if env else None,
        env.version if env else None, deliveries, reason, msg.data)


def _deliveries(msg: Msg) -> int:
    return msg.metadata.num_delivered or 1
