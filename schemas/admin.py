"""Bodies of the operators' HTTP API (``/v1/admin``): game logs, states, verdicts, search.

These carry every hand face up (``OperatorView``, stored events whole), which is
why they live apart from the public bodies and only operator accounts get them
(docs/architecture.md, rule 6: the full view is a role).
"""

from __future__ import annotations

import msgspec

from schemas.events import GameEvent
from schemas.views import OperatorView, SeatView


class LoggedEvent(msgspec.Struct, frozen=True, kw_only=True):
    """One stored event: ``version`` counts from 1; the state "at N" is after version N."""

    version: int
    schema_version: int
    occurred_at_ms: int
    event: GameEvent


class EventLog(msgspec.Struct, frozen=True, kw_only=True):
    game_id: str
    version: int  # how many events the game has
    over: bool  # the log ends with GameEnded: it will not grow
    events: list[LoggedEvent]
    names: list[str] = []  # how each seat is named: the table's names, "Bot 2 (basic)"


class StateAt(msgspec.Struct, frozen=True, kw_only=True):
    """The engine's state after ``at`` events, as ``engine.views`` shows it: the
    operator view (every hand) or, with ``seat``, exactly what that seat saw."""

    game_id: str
    at: int  # events folded: 0 is before the first event
    version: int  # how many events the game has
    event: LoggedEvent | None  # event number ``at`` (None at 0); with ``seat``, as that
    # seat received it (None when it was not sent to the seat at all)
    seat: int | None = None
    state: OperatorView | None = None  # without ``seat``
    view: SeatView | None = None  # with ``seat``


class Divergence(msgspec.Struct, frozen=True, kw_only=True):
    """Where the stored log and today's engine part ways (``index`` counts from 0,
    so it is the event of version ``index + 1``)."""

    index: int
    reason: str
    stored: list[GameEvent]
    produced: list[GameEvent]
    error: str | None = None


class Verification(msgspec.Struct, frozen=True, kw_only=True):
    game_id: str
    events: int
    verified: bool
    divergence: Divergence | None = None


class GameFound(msgspec.Struct, frozen=True, kw_only=True):
    """One game of the lobby's games projection (fed by GameStarted and GameEnded)."""

    game_id: str
    table_id: str | None
    players: list[str]  # player ids, or "bot:<level>"
    names: list[str | None]  # the names seated at the table, when the lobby knows them
    started_at_ms: int | None
    ended_at_ms: int | None  # None while the game is on
    winner: int | None  # the winning team (0: seats 0 and 2), None for a draw or a game on
    scores: list[int] | None
    reason: str | None  # target, floor, hands, boston, forfeit
    hands_played: int | None


class GameSearch(msgspec.Struct, frozen=True, kw_only=True):
    games: list[GameFound]
