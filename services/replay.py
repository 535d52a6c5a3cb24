"""Operators' tools over game logs: replay with verification, exports, record checks.

A log is JSON Lines, one stored event a line:
``{"version": 7, "schema_version": 1, "event": {"type": "CardPlayed", ...}}``.
Older schema versions are upcast on read, exactly as the event store does, so
an exported log replays with the code of the day.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from typing import IO, Any

import msgspec

from engine.evolve import fold
from engine.records import hand_records  # noqa: F401  (export writes them)
from engine.replay import Divergence, verify
from engine.timeline import SEATS, board, entries, seat_names, timeline
from engine.views import operator_view, view
from schemas import events as ev
from services.platform.events import EventRegistry, game_registry

_json = msgspec.json.Encoder()


class LogError(ValueError):
    """A log line that is not a stored event; names the line."""


def encode_log_line(version: int, event: ev.Event) -> bytes:
    return _json.encode({"version": version, "schema_version": type(event).VERSION,
                         "event": event}) + b"\n"


def read_log(lines: Iterable[bytes], registry: EventRegistry | None = None) -> list[ev.Event]:
    """Decode an exported log, upcasting old versions; versions must run 1, 2, 3..."""
    registry = registry or game_registry()
    out: list[ev.Event] = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = msgspec.json.decode(line)
            body = dict(row["event"])
            event = registry.from_builtins(body.pop("type"), int(row.get("schema_version", 1)),
                                           body)
        except (msgspec.DecodeError, msgspec.ValidationError, KeyError, TypeError,
                LookupError) as exc:
            raise LogError(f"line {n}: not a stored game event ({exc})") from None
        if row.get("version", len(out) + 1) != len(out) + 1:
            raise LogError(f"line {n}: version {row.get('version')} out of order")
        out.append(event)  # type: ignore[arg-type]
    return out


def replay_report(events: Sequence[ev.Event], out: IO[str], *, at: int | None = None,
                  seat: int | None = None, as_json: bool = False,
                  names: Sequence[str | None] = ()) -> bool:
    """Print the timeline up to ``at`` (events counted by version: the state after ``at``
    events; all when None), then the board there when ``at`` or ``seat`` is given, and
    verify; True when it verifies. ``names``: the people at the table, when known."""
    divergence = verify(events)
    started = next((e for e in events if isinstance(e, ev.GameStarted)), None)
    labels = seat_names(started.players if started else ("",) * 4, names)
    upto = len(events) if at is None else at
    state = fold(events[:upto])
    shown: Any = view(state, seat) if seat is not None else operator_view(state)
    if as_json:
        out.write(_json.encode({
            "events": len(events), "at": upto, "names": labels,
            "verified": divergence is None, "divergence": divergence,
            "timeline": [{"version": v, "lines": lines}
                         for v, lines in entries(events, upto, labels)],
            "state": shown}).decode() + "\n")
        return divergence is None
    for line in timeline(events, until=upto, names=labels):
        out.write(line + "\n")
    if seat is not None or at is not None:
        label = f"what {SEATS[seat]} {labels[seat]} saw" if seat is not None else "the table"
        out.write(f"--- {label} after event {upto} of {len(events)} ---\n")
        for line in board(shown, labels):
            out.write(line + "\n")
    out.write(describe_divergence(divergence, len(events)) + "\n")
    return divergence is None


def describe_divergence(d: Divergence | None, count: int) -> str:
    if d is None:
        return f"verified: {count} events, every command reproduces its stored events"
    lines = [f"DIVERGES at event {d.index + 1}: {d.reason}"]
    if d.error:
        lines.append(f"  engine error: {d.error}")
    lines += [f"  stored:   {_json.encode(e).decode()}" for e in d.stored]
    lines += [f"  produced: {_json.encode(e).decode()}" for e in d.produced]
    return "\n".join(lines)


def write_records(records: Iterable[dict[str, Any]], out: IO[bytes] | None = None) -> int:
    out = out or sys.stdout.buffer
    n = 0
    for r in records:
        out.write(_json.encode(r) + b"\n")
        n += 1
    out.flush()
    return n
