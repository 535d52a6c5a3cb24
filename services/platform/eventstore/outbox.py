"""The outbox: committed events onto JetStream, at least once.

The append queues each event in ``outbox`` in its own transaction, so a
committed event is never forgotten even if the process dies right after the
commit. The writer holds the events it just appended, so it publishes them
itself right after the commit (``Publisher``, with ``Nats-Msg-Id =
stream:version``) and awaits JetStream's acknowledgements; the published rows
are then deleted in bulk by the relay, one statement for many commands, not a
transaction per command.

The relay is the backstop: it publishes queued rows older than ``sweep_after``
(what a writer that died between its commit and its publish, or whose publish
failed, left behind), waits for the acknowledgement, and only then deletes the
rows. JetStream drops a republished duplicate inside its window, so a row
published by both its writer and the relay reaches consumers once. Rows are
claimed with ``FOR UPDATE SKIP LOCKED``, so several relays can run side by side.
Without a writer publishing (``sweep_after`` None), the relay publishes every
queued row as soon as it is woken.

``republish`` is the resync after JetStream lost or purged events: it reads
them from the store and publishes them under a new generation of message ids
(``stream:version:generation``), since the old ids may still sit in the
duplicate window and JetStream would drop them unseen. Consumers apply by
(stream, version), so an event they already hold changes nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass

import asyncpg
import msgspec
import nats.errors
from prometheus_client import Counter, Gauge

from schemas.bus import EventEnvelope
from services.platform import faults, logs, tracing
from services.platform.busclient import BusClient, Unavailable
from services.platform.eventstore import OUTBOX_CHANNEL, envelope

PUBLISHED = Counter("spades_outbox_published_total", "Events published by the outbox relay")
BACKLOG = Gauge("spades_outbox_backlog", "Events committed and not yet on JetStream")
UNCONFIRMED = Gauge("spades_postgres_commits_unconfirmed",
                    "1 while PostgreSQL confirms commits without waiting for a synchronous "
                    "standby (synchronous_standby_names empty): losing its machine then "
                    "loses acknowledged commands")
UNACKED = Counter("spades_outbox_sent_unacked_total", "Events sent by plain delivery while "
                  "JetStream was not acknowledging, left to the relay to store")

_log = logs.get("outbox")
_encoder = msgspec.msgpack.Encoder()

SubjectFor = Callable[[str, str], str]


_EVENT_COLUMNS = ("e.position, e.stream, e.version, e.type, e.schema_version, e.event_id,"
                  " e.occurred_at, e.correlation_id, e.causation_id, e.body")


def msg_id(stream: str, version: int, generation: str = "") -> str:
    return f"{stream}:{version}:{generation}" if generation else f"{stream}:{version}"


def _message(subject_for: SubjectFor, e: EventEnvelope,
             generation: str = "") -> tuple[str, bytes, str]:
    """Subject, payload and message id of one event, on JetStream or plainly alike."""
    return (subject_for(e.stream, e.type), _encoder.encode(e),
            msg_id(e.stream, e.version, generation))


@dataclass(frozen=True)
class Republished:
    sent: int  # events read from the store and published
    stored: int  # of those, how many JetStream acknowledged as new messages


async def republish(pools: Sequence[asyncpg.Pool], client: BusClient,
                    subject_for: SubjectFor, *, from_position: int = 0,
                    stream: str | None = None, event_type: str | None = None,
                    batch: int = 256, ack_timeout: float = 30.0) -> Republished:
    """Publish stored events again, from ``from_position`` (and of ``stream`` or of
    ``event_type`` only, if given) under a fresh generation of message ids;
    ``Unavailable`` unless JetStream answered for every one. Each database's events go in position
    order; the events of several databases (``shards``) are interleaved by the time
    they occurred, so a consumer whose result depends on the order (ratings) sees
    games end in the order they ended, whichever database holds them."""
    generation = f"r{time.time_ns()}"
    sent = stored = 0
    rows: list[asyncpg.Record] = []
    stored_rows = [_stored(p, from_position, stream, event_type, batch) for p in pools]
    try:
        async for row in _by_time(stored_rows):
            rows.append(row)
            if len(rows) < batch:
                continue
            stored += await _publish_again(client, subject_for, rows, generation, ack_timeout)
            sent, rows = sent + len(rows), []
        if rows:
            stored += await _publish_again(client, subject_for, rows, generation, ack_timeout)
            sent += len(rows)
    except (nats.errors.Error, TimeoutError) as exc:
        raise Unavailable("republish", repr(exc)) from None
    return Republished(sent, stored)


async def _stored(pool: asyncpg.Pool, from_position: int, stream: str | None,
                  event_type: str | None, batch: int) -> AsyncIterator[asyncpg.Record]:
    after = from_position - 1
    while True:
        rows = await pool.fetch(
            f"SELECT {_EVENT_COLUMNS} FROM events e WHERE e.position > $1"
            " AND ($2::text IS NULL OR e.stream = $2) AND ($3::text IS NULL OR e.type = $3)"
            " ORDER BY e.position LIMIT $4",
            after, stream, event_type, batch)
        if not rows:
            return
        for row in rows:
            yield row
        after = rows[-1]["position"]


async def _by_time(sources: Sequence[AsyncIterator[asyncpg.Record]]
                   ) -> AsyncIterator[asyncpg.Record]:
    """Every source's rows in the source's own order, the sources merged by
    ``occurred_at`` (the earlier source first on a tie)."""
    heads: dict[int, asyncpg.Record] = {}
    for i, source in enumerate(sources):
        first = await anext(source, None)
        if first is not None:
            heads[i] = first
    while heads:
        i = min(heads, key=lambda k: (heads[k]["occurred_at"], k))
        yield heads[i]
        following = await anext(sources[i], None)
        if following is None:
            del heads[i]
        else:
            heads[i] = following


async def _publish_again(client: BusClient, subject_for: SubjectFor,
                         rows: Sequence[asyncpg.Record], generation: str,
                         ack_timeout: float) -> int:
    """Publish ``rows`` under ``generation``; how many JetStream stored as new."""
    return await (await client.store(
        [_message(subject_for, envelope(r), generation) for r in rows], ack_timeout))


class OutboxRelay:
    def __init__(self, pool: asyncpg.Pool, client: BusClient, subject_for: SubjectFor, *,
                 batch: int = 256, poll_seconds: float = 0.2,
                 ack_timeout: float = 10.0, sweep_after: float | None = None) -> None:
        self.pool, self.client, self.subject_for = pool, client, subject_for
        self.batch, self.poll_seconds, self.ack_timeout = batch, poll_seconds, ack_timeout
        self.sweep_after = sweep_after
        self._published: list[int] = []  # positions on JetStream, their rows not yet deleted
        self._wake = asyncio.Event()
        self._stopping = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._listener: asyncpg.Connection | None = None
        self._alone: bool | None = None

    async def publish_pending(self) -> int:
        """Publish one batch of queued events; returns how many went out."""
        async with self.pool.acquire() as conn, conn.transaction():
            # Losing this transaction's commit in a crash only republishes the rows, and
            # JetStream drops those duplicates by message id: no need to wait for fsync.
            await conn.execute("SET LOCAL synchronous_commit = off")
            rows = await conn.fetch(
                f"SELECT {_EVENT_COLUMNS} FROM outbox o JOIN events e USING (position)"
                " WHERE $2::float8 IS NULL OR e.recorded_at < now() - make_interval(secs => $2)"
                " ORDER BY o.position LIMIT $1 FOR UPDATE OF o SKIP LOCKED",
                self.batch, self.sweep_after)
            if not rows:
                return 0
            # Raises (and keeps the rows queued) unless JetStream stored every one.
            await (await self.client.store(
                [_message(self.subject_for, envelope(r)) for r in rows], self.ack_timeout))
            faults.hit(faults.AFTER_PUBLISH_BEFORE_MARK)
            await conn.execute("DELETE FROM outbox WHERE position = ANY($1::bigint[])",
                               [r["position"] for r in rows])
        PUBLISHED.inc(len(rows))
        return len(rows)

    def published(self, positions: Sequence[int]) -> None:
        """A writer put these events on JetStream: delete their rows with the next batch."""
        self._published.extend(positions)
        if len(self._published) >= self.batch:
            self._wake.set()

    async def forget_published(self) -> int:
        """Delete the rows of the events writers published, in one statement."""
        done, self._published = self._published, []
        if not done:
            return 0
        try:
            async with self.pool.acquire() as conn, conn.transaction():
                # Lost in a crash, the rows are only published again, and dropped by
                # JetStream as duplicates: no need to wait for fsync.
                await conn.execute("SET LOCAL synchronous_commit = off")
                await conn.execute("DELETE FROM outbox WHERE position = ANY($1::bigint[])",
                                   done)
        except BaseException:
            self._published[:0] = done
            raise
        return len(done)

    async def drain(self) -> int:
        """Publish until a batch comes back short: then the queue was empty."""
        total = 0
        while True:
            n = await self.publish_pending()
            total += n
            if n < self.batch:
                return total

    async def start(self) -> None:
        self._listener = await self.pool.acquire()
        await self._listener.add_listener(OUTBOX_CHANNEL, self._on_notify)
        self._task = asyncio.create_task(self._run(), name="outbox-relay")

    def _on_notify(self, *_: object) -> None:
        self._wake.set()

    def wake(self) -> None:
        """Publish now rather than at the next poll: called by a store in this process."""
        self._wake.set()

    async def _run(self) -> None:
        sampled = swept = 0.0
        loop = asyncio.get_running_loop()
        while not self._stopping.is_set():
            self._wake.clear()
            try:
                await self.forget_published()
                # Backstop only: a sweep twice per sweep age finds what writers left.
                if self.sweep_after is None or loop.time() - swept >= self.sweep_after / 2:
                    swept = loop.time()
                    await self.drain()
                if loop.time() - sampled >= 1.0:  # gauges, not worth a query per commit
                    sampled = loop.time()
                    await self.sample()
            except Exception as exc:  # NATS or Postgres away: rows stay queued, retry
                if self._stopping.is_set():
                    return
                _log.warning("relay_failed", error=repr(exc))
                await asyncio.sleep(self.poll_seconds)
                continue
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self.poll_seconds)

    async def sample(self) -> None:
        """The backlog, and whether commits wait for a synchronous standby; commits that
        stop waiting (the standby lost, the primary carrying on alone) are said loudly."""
        row = await self.pool.fetchrow(
            "SELECT count(*) AS backlog, current_setting('synchronous_standby_names') = ''"
            " AS alone FROM outbox")
        assert row is not None
        BACKLOG.set(row["backlog"])
        alone = bool(row["alone"])
        UNCONFIRMED.set(int(alone))
        if self._alone is not None and alone != self._alone:
            if alone:
                _log.warning("commits_unconfirmed", detail="PostgreSQL confirms commits "
                             "without a synchronous standby: losing its machine now loses "
                             "acknowledged commands")
            else:
                _log.info("commits_confirmed_again")
        self._alone = alone

    async def stop(self) -> None:
        self._stopping.set()
        self._wake.set()
        if self._task:
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        with contextlib.suppress(Exception):  # else the next relay's sweep publishes them
            await self.forget_published()
        if self._listener is not None:
            with contextlib.suppress(Exception):
                await self._listener.remove_listener(OUTBOX_CHANNEL, self._on_notify)
            await self.pool.release(self._listener)
            self._listener = None

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()


class Publisher:
    """A writer's events onto JetStream right after its commit (``EventStore(publish=)``).

    The messages are handed to the NATS connection in the order of the commits,
    so a game's events reach JetStream in version order; the command is answered
    without waiting for JetStream's acknowledgements (a round trip per command on
    the game's path), which are awaited beside it. Once JetStream acknowledged
    every event of a command, the relay deletes their rows. A failed or
    unanswered publish is logged and left to the relay: the events are
    committed, the command stands, and their outbox rows are still queued.
    """

    def __init__(self, client: BusClient, subject_for: SubjectFor, relay: OutboxRelay,
                 ack_timeout: float = 10.0, stalled_at: int = 1000) -> None:
        self.client, self.subject_for, self.relay = client, subject_for, relay
        self.ack_timeout, self.stalled_at = ack_timeout, stalled_at
        self._confirming: set[asyncio.Future[int]] = set()

    async def __call__(self, envelopes: Sequence[EventEnvelope]) -> None:
        if self.client.storing + len(envelopes) > self.stalled_at:
            await self._send_unacked(envelopes)
            return
        parents, spans = _publish_spans(envelopes) if tracing.on() else (None, [])
        try:
            acked = await self.client.store([_message(self.subject_for, e) for e in envelopes],
                                            self.ack_timeout, parents)
        except Exception as exc:  # NATS away: the relay's sweep publishes them
            _log.warning("publish_failed", error=repr(exc), events=len(envelopes))
            _end(spans)
            return
        positions = [e.position for e in envelopes]
        self._confirming.add(acked)
        acked.add_done_callback(lambda done: self._confirmed(done, positions, spans))

    async def _send_unacked(self, envelopes: Sequence[EventEnvelope]) -> None:
        """JetStream has left ``stalled_at`` publishes unacknowledged (a stream's leader
        being elected after its node died, say), and waiting for room would hold up
        the game's commands. The events go out by plain delivery instead, which the
        gateways' subscriptions receive at once (and JetStream stores too, if it
        can); their outbox rows stay queued for the relay, whose sweep stores them
        once JetStream answers, each once by its message id."""
        try:
            for e in envelopes:
                subject, data, message_id = _message(self.subject_for, e)
                await self.client.nc.publish(subject, data,
                                             headers={"Nats-Msg-Id": message_id})
        except Exception as exc:  # NATS away: the relay's sweep publishes them
            _log.warning("publish_failed", error=repr(exc), events=len(envelopes))
            return
        UNACKED.inc(len(envelopes))

    def _confirmed(self, acked: asyncio.Future[int], positions: list[int],
                   spans: list[tracing.Span]) -> None:
        _end(spans)
        self._confirming.discard(acked)
        if acked.cancelled():
            return
        if (exc := acked.exception()) is not None:  # not stored, or no answer: the sweep
            _log.warning("publish_failed", error=repr(exc), events=len(positions))
            return
        PUBLISHED.inc(len(positions))
        self.relay.published(positions)

    async def settled(self) -> None:
        """Wait for JetStream's answers to everything published so far."""
        if self._confirming:
            await asyncio.gather(*self._confirming, return_exceptions=True)


def _publish_spans(envelopes: Sequence[EventEnvelope]
                   ) -> tuple[list[str | None] | None, list[tracing.Span]]:
    """A publish span for each traced command among these events (its group commit's
    ``tracing.COMMITTING``), ended by JetStream's acknowledgement, and each message's
    ``traceparent``: the gateways' deliveries of the events are its children."""
    traced = tracing.COMMITTING.get()
    if not traced:
        return None, []
    spans: dict[str, tuple[tracing.Span, str | None]] = {}
    parents: list[str | None] = []
    for e in envelopes:
        parent = traced.get(e.stream)
        if parent is None:
            parents.append(None)
            continue
        if e.stream not in spans:
            got = tracing.start("publish", tracing.SpanKind.PRODUCER,
                                tracing.from_headers({"traceparent": parent}),
                                attrs={"game.id": e.stream})
            assert got is not None  # tracing is on
            spans[e.stream] = (got, tracing.traceparent_of(got))
        parents.append(spans[e.stream][1])
    return parents, [span for span, _ in spans.values()]


def _end(spans: list[tracing.Span]) -> None:
    for span in spans:
        span.end()
