"""Committed events as JetStream messages: one per event, or one per stream per commit.

Game events travel in batches (``schemas.bus.EventBatch``): the consecutive
events of one game from one commit are one message, so NATS stores, and every
gateway following the game takes in, one message per game per group commit
instead of one per event. The types consumers select by subject
(``subjects.TRAVELS_ALONE``) travel alone, so such a consumer gets nothing else.
A batch's message id names its first and last version: a batch cut differently
(the relay's sweep after a writer's publish failed) is never mistaken for one
already stored and dropped, so no event is lost to the duplicate window;
consumers apply by (stream, version), so an event delivered twice counts once.
Tournament events and match outcomes stay one message per event (``batched`` off).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import msgspec

from schemas.bus import EventBatch, EventEnvelope
from schemas.subjects import TRAVELS_ALONE

SubjectFor = Callable[[str, str], str]

_encoder = msgspec.msgpack.Encoder()
_batch = msgspec.msgpack.Decoder(EventBatch)
_single = msgspec.msgpack.Decoder(EventEnvelope)


def events_of(data: bytes) -> tuple[EventEnvelope, ...]:
    """The events of a game event message: an ``EventBatch``, or a lone ``EventEnvelope``
    as published before batches (still in a stream, or from a worker not yet upgraded).
    ``msgspec.DecodeError`` (or ``ValidationError``) for anything else, and for a batch
    without events."""
    try:
        events = _batch.decode(data).events
    except msgspec.ValidationError:
        return (_single.decode(data),)
    if not events:
        raise msgspec.ValidationError("a batch without events")
    return events


def msg_id(stream: str, version: int, generation: str = "", last: int | None = None) -> str:
    """``stream:version`` for one event, ``stream:first-last`` for a batch; a
    ``generation`` (a resync's) after them."""
    name = f"{stream}:{version}" if last is None or last == version else \
        f"{stream}:{version}-{last}"
    return f"{name}:{generation}" if generation else name


@dataclass(frozen=True, slots=True)
class Message:
    subject: str
    data: bytes
    msg_id: str
    events: int  # how many events it carries


def cut(envelopes: Sequence[EventEnvelope], most: int = 256,
        alone: frozenset[str] = TRAVELS_ALONE) -> list[tuple[EventEnvelope, ...]]:
    """``envelopes`` (in commit order) as batches: runs of one stream's consecutive
    versions written at the same moment (one commit), at most ``most`` long, with
    every event whose type is in ``alone`` a batch of its own."""
    out: list[tuple[EventEnvelope, ...]] = []
    run: list[EventEnvelope] = []
    for env in envelopes:
        if run:
            last = run[-1]
            if (env.type in alone or last.type in alone or len(run) >= most
                    or env.stream != last.stream or env.version != last.version + 1
                    or env.occurred_at_ms != last.occurred_at_ms):
                out.append(tuple(run))
                run = []
        run.append(env)
    if run:
        out.append(tuple(run))
    return out


def messages(envelopes: Sequence[EventEnvelope], subject_for: SubjectFor, *,
             batched: bool, generation: str = "") -> list[Message]:
    """What to publish for ``envelopes``: a message each, or (``batched``) an
    ``EventBatch`` per run of ``cut``, on the subject of its first event's type."""
    if not batched:
        return [Message(subject_for(e.stream, e.type), _encoder.encode(e),
                        msg_id(e.stream, e.version, generation), 1) for e in envelopes]
    return [Message(subject_for(run[0].stream, run[0].type),
                    _encoder.encode(EventBatch(events=run)),
                    msg_id(run[0].stream, run[0].version, generation, run[-1].version), len(run))
            for run in cut(envelopes)]
