"""A released version's recorded events and bus traffic (``tests/compat/record.py``),
read back with today's code: the compatibility tests share these."""

from __future__ import annotations

import base64
import json
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from schemas import notes
from schemas.bus import EventEnvelope
from schemas.gamebus import (
    ChatLine,
    CreateGame,
    EventsReply,
    EventsSince,
    GameReply,
    GameRequest,
    SeatPresent,
    TableChanged,
)
from schemas.matches import MatchOpened, MatchOutcome, OpenMatch
from schemas.tournaments.api import CommandReply, TournamentRequest
from services.platform.events import game_registry, tournament_registry
from services.tournaments.transport import WRITES

FIXTURES = Path(__file__).resolve().parent / "fixtures"
PREFIX = "compat."


@dataclass(frozen=True)
class Stored:
    """One stored event's row, as the release wrote it."""

    stream: str
    version: int
    type: str
    schema_version: int
    event_id: str
    occurred_at_ms: int
    correlation_id: str | None
    causation_id: str | None
    command_id: str | None
    body: bytes


@dataclass(frozen=True)
class Message:
    subject: str  # without the recording's prefix
    reply: str
    headers: dict[str, str]
    data: bytes


def stored(version: str, store: str = "events.jsonl") -> list[Stored]:
    """A store's rows: the game workers' (``events.jsonl``) or the tournament service's
    (``tournament_events.jsonl``)."""
    rows = [json.loads(line) for line in (FIXTURES / version / store).open()]
    return [Stored(**{**r, "body": base64.b64decode(r["body"])}) for r in rows]


def games(rows: list[Stored]) -> dict[str, list[msgspec.Struct]]:
    """Each game's events, decoded by today's registry (upcasters and all)."""
    registry, out = game_registry(), defaultdict(list)
    for r in rows:
        out[r.stream].append(registry.decode(r.type, r.schema_version, r.body))
    return dict(out)


def traffic(version: str) -> list[Message]:
    out = []
    for line in (FIXTURES / version / "bus.jsonl").open():
        m = json.loads(line)
        out.append(Message(m["subject"].removeprefix(PREFIX), m["reply"], m["headers"],
                           base64.b64decode(m["data"])))
    return out


def _decoder(kind: Any) -> Callable[[bytes], Any]:
    decoder = msgspec.msgpack.Decoder(kind)
    return decoder.decode


# What today's readers decode each subject's body as (schemas/subjects.py), and the type
# of the reply a request gets.
BODIES: dict[str, tuple[Any, Any]] = {
    "game.cmd": (GameRequest, GameReply),
    "svc.game.create": (CreateGame, GameReply),
    "svc.game.since": (EventsSince, EventsReply),
    "game.chat": (ChatLine, None),
    "lobby.tables": (TableChanged, None),
    "lobby.presence": (SeatPresent, None),
    "player.note": (notes.Note, None),
    "game.evt": (EventEnvelope, None),
    "lobby.match": (EventEnvelope, None),
    "tournament.evt": (EventEnvelope, None),
    "svc.lobby.open_match": (OpenMatch, MatchOpened),
    **{f"svc.tournaments.{name}": (TournamentRequest[command], CommandReply)  # type: ignore[valid-type]
       for name, command in WRITES.items()},
}


def kind_of(subject: str) -> str:
    """The ``BODIES`` key of a subject (``game.cmd.<id>`` -> ``game.cmd``)."""
    for key in sorted(BODIES, key=len, reverse=True):
        if subject == key or subject.startswith(key + "."):
            return key
    raise LookupError(f"no reader for {subject!r}")


@dataclass(frozen=True)
class Exchange:
    """A request and its reply, both decoded."""

    subject: str
    request: Any
    reply: Any


def _inner(kind: str, env: EventEnvelope) -> Any:
    """What an envelope holds: a game's event, a tournament's, or a match's outcome."""
    if kind == "lobby.match":
        return msgspec.msgpack.decode(env.body, type=MatchOutcome)
    registry = game_registry() if kind == "game.evt" else tournament_registry()
    return registry.decode(env.type, env.schema_version, env.body)


Recorded = tuple[list[Exchange], list[tuple[str, Any]]]


def decoded(messages: list[Message]) -> Recorded:
    """Every recorded message read as today's code reads it: the requests with their
    replies, and the publications (an envelope's event, and a match's outcome, decoded
    too)."""
    replies = {m.subject: m for m in messages if m.subject.startswith("_INBOX")}
    asked = [m for m in messages if not m.subject.startswith("_INBOX")]
    exchanges: list[Exchange] = []
    published: list[tuple[str, Any]] = []
    for m in asked:
        request_type, reply_type = BODIES[kind_of(m.subject)]
        body = _decoder(request_type)(m.data)
        if reply_type is not None:
            exchanges.append(Exchange(m.subject, body, _decoder(reply_type)(
                replies.pop(m.reply).data)))
            continue
        if isinstance(body, EventEnvelope):
            published.append((m.subject, (body, _inner(kind_of(m.subject), body))))
        else:
            published.append((m.subject, body))
    assert not replies, f"replies to nothing recorded: {list(replies)[:3]}"
    return exchanges, published
