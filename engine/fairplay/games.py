"""Games as the detector reads them: who sat where, and every card weighed.

A game comes from the interchange records (docs/fairplay.md, the "who played"
fields of the game record format): one match record, or one hand record per
hand sharing a ``game_id``. Each card choice is weighed by
``engine.fairplay.evidence``; what is kept is small (one ``Card`` a decision),
so a study of thousands of games holds them all.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

from engine.cards import card_id
from engine.fairplay.evidence import DEALS, Card, weigh_card
from engine.recordfields import RecordError
from engine.records import plays_of

Players = tuple[str, str, str, str]


class Game(NamedTuple):
    """One game's weighed decisions and result."""

    game_id: str
    players: Players
    ended_at: int
    hands: int  # hands played (a partial last hand counts)
    points: tuple[int, int]  # what each team scored over the game's hands
    cards: tuple[Card, ...]

    @property
    def loser(self) -> int | None:
        """The team that scored less, or None for a tie."""
        a, b = self.points
        return None if a == b else int(a > b)


def players_of(rec: Any) -> Players:
    """The record's ``players``: four account ids, or ``RecordError`` naming the field."""
    if not isinstance(rec, dict) or "players" not in rec:
        raise RecordError("missing_field", "players",
                          "the record does not say who played (no players)")
    p = rec["players"]
    if not (isinstance(p, list) and len(p) == 4 and all(isinstance(x, str) and x for x in p)):
        raise RecordError("bad_field", "players", "players is four account ids")
    return p[0], p[1], p[2], p[3]


def weigh_record(rec: Any, seed: int = 0, deals: int = DEALS
                 ) -> tuple[int, tuple[int, int], list[Card]]:
    """One hand or match record's hands played, each team's points and weighed cards.
    Raises ``RecordError`` or ``engine.records.Violation`` for a record that cannot be
    replayed."""
    cards: list[Card] = []
    points = [0, 0]
    hands: set[int] = set()
    for n, (k, before, seat, card, after) in enumerate(plays_of(rec)):
        hands.add(k)
        got = weigh_card(before, seat, card_id(card), seed * 7919 + n, deals)
        if got is not None:
            cards.append(got._replace(hand=k, card=str(card)))
        if len(after.sheet) > len(before.sheet):
            for t in range(2):
                points[t] += after.sheet[-1].teams[t].delta
    return len(hands), (points[0], points[1]), cards


def weigh_records(game_id: str, players: Players, ended_at: int, records: Iterable[Any],
                  seed: int = 0, deals: int = DEALS) -> Game:
    """A game from its records (one match record, or its hand records)."""
    hands, points, cards = 0, [0, 0], []
    for i, rec in enumerate(records):
        h, p, c = weigh_record(rec, seed + i, deals)
        cards += [x._replace(hand=hands + x.hand) for x in c]  # numbered across the game
        hands += h
        points = [points[0] + p[0], points[1] + p[1]]
    return Game(game_id, players, ended_at, hands, (points[0], points[1]), tuple(cards))
