"""``spades fairplay scan``: records in, one verdict per pair out, refusals named.

Lines are game records with the "who played" fields (game-record.md): a line
without ``players``, one that is not JSON, and one the rules refuse are each
refused with the line's number and a code, and every other line is judged; a
game's hand records are gathered by ``game_id`` (a record without one is a game
of its own). The search's seeds come from the game's id, so a scan of the same
file gives the same scores.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple
from zlib import crc32

import msgspec

from engine.fairplay.evidence import DEALS, Card
from engine.fairplay.games import Game, Players, players_of, weigh_record
from engine.fairplay.pairs import Verdict, judge
from engine.recordfields import RecordError
from engine.records import Violation

_decoder = msgspec.json.Decoder()


class Refusal(NamedTuple):
    """A line not judged: its number (from 1), the record's id, and why."""

    line: int
    id: str | None
    error: dict[str, Any]

    def as_json(self) -> dict[str, Any]:
        return {"line": self.line, "id": self.id, "error": self.error}


class _Gathered:
    """A game's records as they arrive."""

    __slots__ = ("cards", "ended_at", "hands", "players", "points")

    def __init__(self, players: Players, ended_at: int) -> None:
        self.players, self.ended_at = players, ended_at
        self.hands, self.points = 0, (0, 0)
        self.cards: list[Card] = []


def scan(lines: Iterable[bytes | str], deals: int = DEALS
         ) -> tuple[list[Verdict], list[Refusal]]:
    """The verdicts on every pair of the games in ``lines``, and the lines refused."""
    games: dict[str, _Gathered] = {}
    refused: list[Refusal] = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        rec: Any = None
        try:
            rec = _decoder.decode(line)
            _add(games, rec, n, deals)
        except msgspec.DecodeError as e:
            refused.append(Refusal(n, None, {"code": "bad_json", "field": "",
                                             "message": f"not JSON: {e}"}))
        except RecordError as e:
            refused.append(Refusal(n, _id(rec), {"code": e.code, "field": e.field,
                                                 "message": e.message}))
        except Violation as v:
            refused.append(Refusal(n, _id(rec), v.error))
    done = [Game(gid, g.players, g.ended_at, g.hands, g.points, tuple(g.cards))
            for gid, g in games.items()]
    return judge(sorted(done, key=lambda g: g.ended_at)), refused


def _id(rec: Any) -> str | None:
    rid = rec.get("id") if isinstance(rec, dict) else None
    return rid if isinstance(rid, str) else None


def _add(games: dict[str, _Gathered], rec: Any, n: int, deals: int) -> None:
    if not isinstance(rec, dict):
        raise RecordError("bad_record", "", "a record is a JSON object")
    players = players_of(rec)
    gid = rec.get("game_id", _id(rec) or f"line {n}")
    if not isinstance(gid, str):
        raise RecordError("bad_field", "game_id", "game_id is a string")
    ended_at = rec.get("ended_at", n)
    if isinstance(ended_at, bool) or not isinstance(ended_at, int):
        raise RecordError("bad_field", "ended_at", "ended_at is milliseconds, an integer")
    if "rated" in rec and not isinstance(rec["rated"], bool):
        raise RecordError("bad_field", "rated", "rated is true or false")
    g = games.get(gid)
    if g is not None and g.players != players:
        raise RecordError("bad_field", "players",
                          f"game {gid}'s other records seat other players")
    hands, points, cards = weigh_record(rec, crc32(gid.encode()) + n, deals)
    if g is None:
        g = games[gid] = _Gathered(players, ended_at)
    g.hands += hands
    g.points = (g.points[0] + points[0], g.points[1] + points[1])
    g.cards += cards
    g.ended_at = max(g.ended_at, ended_at)
