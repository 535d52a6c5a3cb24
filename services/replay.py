"""Operators' tools over game logs: replay with verification, exports, record checks.

A log is JSON Lines, one stored event a line:
``{"version": 7, "schema_version": 1, "event": {"type": "CardPlayed", ...}}``.
Older schema versions are upcast on read, exactly as the event store does, so
an exported log replays with the code of the day.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator, Sequence
from typing import IO, Any

import msgspec

from engine.evolve import fold
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


def hand_records(events: Sequence[ev.Event], game_id: str) -> Iterator[dict[str, Any]]:
    """The game's hands as game records (``docs/formats/game-record.md``), each saying
    who played: ``game_id``, ``players``, ``rated``, and ``ended_at`` once the game ended
    (what ``spades fairplay scan`` reads, ``docs/fairplay.md``)."""
    rules_spec: Any = None
    scores, bags = (0, 0), (0, 0)
    hand: dict[str, Any] | None = None
    who: dict[str, Any] = {"game_id": game_id}
    ended = [e.at for e in events if isinstance(e, ev.GameEnded)]
    if ended:
        who["ended_at"] = ended[-1]
    for e in events:
        if isinstance(e, ev.GameStarted):
            rules_spec = _rules_spec(e.rules)
            scores, bags = e.scores, e.bags
            who.update(players=list(e.players), rated=e.rated)
        elif isinstance(e, ev.HandDealt):
            hand = {"id": f"{game_id}-hand-{e.hand_no}", "rules": rules_spec,
                    "dealer": e.dealer, "hands": [list(h) for h in e.hands],
                    "bids": [0, 0, 0, 0], "blind_nil": [False] * 4, "plays": [],
                    "prior": {"scores": list(scores), "bags": list(bags)}, **who}
        elif hand is not None and isinstance(e, ev.BidPlaced):
            hand["bids"][e.seat] = e.bid
            hand["blind_nil"][e.seat] = e.blind
        elif hand is not None and isinstance(e, ev.CardsPassed):
            hand.setdefault("passes", [[], [], [], []])[e.seat] = list(e.cards)
        elif hand is not None and isinstance(e, ev.CardPlayed):
            hand["plays"].append(e.card)
        elif hand is not None and isinstance(e, ev.HandScored):
            scores = (e.teams[0].score_after, e.teams[1].score_after)
            bags = (e.teams[0].bags_after, e.teams[1].bags_after)
            yield hand
            hand = None
    if hand is not None and hand["plays"]:
        yield hand


def _rules_spec(rules: Any) -> Any:
    """A preset name, or the preset with only the options that differ from it."""
    from engine.presets import PRESETS

    base = PRESETS.get(rules.preset)
    mine = msgspec.to_builtins(rules)
    mine.pop("preset")
    if base is None:
        return {"preset": "house", **mine}
    theirs = msgspec.to_builtins(base)
    theirs.pop("preset")
    overrides = {k: v for k, v in mine.items() if theirs.get(k) != v}
    return rules.preset if not overrides else {"preset": rules.preset, **overrides}


def write_records(records: Iterable[dict[str, Any]], out: IO[bytes] | None = None) -> int:
    out = out or sys.stdout.buffer
    n = 0
    for r in records:
        out.write(_json.encode(r) + b"\n")
        n += 1
    out.flush()
    return n
