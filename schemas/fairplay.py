"""Fair play's review queue on the bus (``svc.ratings.fairplay_*``, msgpack) and over
HTTP (``/v1/admin/fairplay``, ``POST /v1/games/{game_id}/report``).

The ratings service scores every rated game's pairs and keeps the cases
(docs/fairplay.md); the lobby asks it for the queue, a case and a decision on an
operator's behalf, sends it players' reports, and asks it who is barred from ranked
when someone joins the queue.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

CaseId = Annotated[str, msgspec.Meta(pattern=r"^[A-Za-z0-9_-]{1,64}$")]
PlayerId = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
Relation = Literal["partners", "opponents", "reported"]
Status = Literal["open", "cleared", "upheld"]
Decision = Literal["cleared", "upheld"]
Note = Annotated[str, msgspec.Meta(max_length=500)]

# Endpoint names under ``svc.ratings``.
CASES = "fairplay_cases"
CASE = "fairplay_case"
DECIDE = "fairplay_decide"
REPORT = "fairplay_report"
BARRED = "fairplay_barred"


class CaseSummary(msgspec.Struct, frozen=True, kw_only=True):
    """One case as the queue lists it: the pair (or a reported game's four players),
    how they are related, where it stands, and the detector's latest score."""

    case_id: str
    players: list[str]
    relation: Relation
    status: Status
    score: float
    hands: int
    why: str
    games: int  # how many games the case is about
    opened_at_ms: int
    decided_at_ms: int | None = None


class Telling(msgspec.Struct, frozen=True, kw_only=True):
    """A card decision that weighs: the card matched the best card for the partner's
    real hand and not for a plausible one (``followed`` "real"), or the other way."""

    game_id: str
    hand: int
    seat: int
    player_id: str
    card: str
    followed: Literal["real", "plausible"]


class PairScore(msgspec.Struct, frozen=True, kw_only=True):
    """The detector's verdict on one pair of the case's players, as last scored."""

    players: list[str]
    relation: Literal["partners", "opponents"]
    hands: int
    score: float
    flagged: bool
    why: str


class CaseEvent(msgspec.Struct, frozen=True, kw_only=True):
    """What happened to the case: ``opened``, ``scored`` (the score moved), ``reported``
    (a player reported one of its games), ``decided``."""

    type: Literal["opened", "scored", "reported", "decided"]
    at_ms: int
    by: str = ""  # who: an operator for a decision, a reporter for a report
    score: float | None = None
    game_id: str | None = None
    decision: Decision | None = None
    note: str = ""
    barred_until_ms: int | None = None
    voided_games: list[str] = []


class CaseDetail(msgspec.Struct, frozen=True, kw_only=True):
    case: CaseSummary
    games: list[str]  # the games in question, oldest first
    telling: list[Telling]  # the decisions that weigh most (the real hand's first)
    scores: list[PairScore]  # each pair of the case's players, scored on these games
    events: list[CaseEvent]


class CaseList(msgspec.Struct, frozen=True, kw_only=True):
    cases: list[CaseSummary]


class ListCases(msgspec.Struct, frozen=True, kw_only=True):
    status: Status | None = None  # None: every case, open first
    limit: Annotated[int, msgspec.Meta(ge=1, le=500)] = 50


class GetCase(msgspec.Struct, frozen=True, kw_only=True):
    case_id: CaseId


class DecisionBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """An operator's decision on an open case. ``upheld`` voids the rating changes of
    the case's games (the ratings are rebuilt without them) and bars its accounts from
    ranked for ``bar_days`` (the service's setting when not given)."""

    decision: Decision
    note: Note = ""
    bar_days: Annotated[float, msgspec.Meta(gt=0, le=3650)] | None = None


class Decide(DecisionBody, frozen=True, kw_only=True):
    case_id: CaseId
    by: PlayerId


class ReportBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A player's report of a game: what they saw, in a few words (optional)."""

    reason: Note = ""


class Report(ReportBody, frozen=True, kw_only=True):
    game_id: PlayerId
    players: Annotated[list[PlayerId], msgspec.Meta(min_length=4, max_length=4)]
    reporter: PlayerId


class Reported(msgspec.Struct, frozen=True, kw_only=True):
    """The case the report joined (opened, or an open one of the same players)."""

    case_id: str
    opened: bool


BARRED_AT_ONCE = 1000  # players one ``BarredRequest`` may ask about


class BarredRequest(msgspec.Struct, frozen=True):
    """A queue join asks about its one or two players; the matchmaker about the queued
    players it has not asked about lately, ``BARRED_AT_ONCE`` at a time."""

    players: Annotated[list[PlayerId], msgspec.Meta(min_length=1, max_length=BARRED_AT_ONCE)]


class Bar(msgspec.Struct, frozen=True, kw_only=True):
    player_id: str
    until_ms: int
    case_id: str


class BarredReply(msgspec.Struct, frozen=True):
    bars: list[Bar]  # only those barred now


class BarsBegan(msgspec.Struct, frozen=True):
    """Published (``Names.ranked_barred``, not stored) once an upheld case's bar is
    committed: the matchmaker asks about these players again at once, rather than at
    its next recheck. Lost, it costs only that wait."""

    players: list[str]


class ReportTaken(msgspec.Struct, frozen=True, kw_only=True):
    """A report was taken: the game's players are in the review queue."""

    game_id: str
    received: bool = True
