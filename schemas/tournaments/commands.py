"""Tournament commands: what organizers, players and the scheduler ask of a tournament.

``decide(state, command)`` turns each into events or a ``TournamentError``.
The service fills in who asks (``by``/``player``) from the caller's token and
the time ``at`` from its clock; randomness (a round's seed) arrives in the
command, so deciding is a pure function.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from schemas.tournaments.events import (
    CallState,
    DealResult,
    Outcome,
    ResultReason,
    TournamentSettings,
)


class Command(msgspec.Struct, frozen=True, tag=True, tag_field="type", kw_only=True):
    at: int = 0


class CreateTournament(Command, frozen=True):
    tournament_id: str
    organizer: str
    settings: TournamentSettings


class ChangeSettings(Command, frozen=True):
    by: str
    settings: TournamentSettings


class RegisterTeam(Command, frozen=True):
    team_id: str
    name: str
    player: str
    partner: str
    rating: float = 0.0
    banned: tuple[str, ...] = ()  # the service: which of the two has a no-show ban now


class AddBotTeam(Command, frozen=True):
    """The organizer enters a team of two bots (unrated tournaments only): registered,
    confirmed and checked in at once."""

    team_id: str
    name: str
    by: str
    level: Literal["beginner", "basic", "expert"] = "basic"


class ConfirmTeam(Command, frozen=True):
    team_id: str
    player: str


class WithdrawTeam(Command, frozen=True):
    team_id: str
    player: str


class CheckIn(Command, frozen=True):
    player: str


class Start(Command, frozen=True):
    """The scheduler, at ``starts_at``: close the check-in and start, or cancel."""


class StartNow(Command, frozen=True):
    """The organizer: start now, before ``starts_at``, with the teams present now (with a
    check-in, those both of whose players checked in), as the start would."""

    by: str


class PairRound(Command, frozen=True):
    """The scheduler: pair the next Swiss or round-robin round. ``seed`` (hex) decides
    seats in Swiss pairs and, with duplicate deals, the round's deals."""

    seed: str


class CallMatch(Command, frozen=True):
    """The scheduler: what the lobby answered when asked to open the match."""

    match_id: str
    game_id: str
    table_id: str
    state: CallState
    ready_by: int = 0


class RecordResult(Command, frozen=True):
    match_id: str
    outcome: Outcome
    reason: ResultReason = "played"
    scores: tuple[int, int] = (0, 0)
    bags_taken: tuple[int, int] = (0, 0)
    deals: tuple[DealResult, ...] = ()
    game_stream: str = ""
    absent: tuple[str, ...] = ()


class SetSeeds(Command, frozen=True):
    """The organizer, before the start: these teams first, in this order."""

    by: str
    order: tuple[str, ...]


class SetPairings(Command, frozen=True):
    """The organizer: the next Swiss round's pairs (home, away) and bye, by hand."""

    by: str
    round_no: int
    pairs: tuple[tuple[str, str], ...]
    bye: str = ""


class WaiveBan(Command, frozen=True):
    player: str
    by: str


class OverrideResult(Command, frozen=True):
    match_id: str
    outcome: Outcome
    by: str
    why: str
    scores: tuple[int, int] = (0, 0)


class Disqualify(Command, frozen=True):
    team_id: str
    by: str
    why: str


class Cancel(Command, frozen=True):
    by: str


TournamentCommand = (
    CreateTournament | ChangeSettings | RegisterTeam | ConfirmTeam | WithdrawTeam | CheckIn
    | Start | PairRound | CallMatch | RecordResult | OverrideResult | Disqualify | Cancel
    | WaiveBan | SetSeeds | SetPairings | AddBotTeam | StartNow
)
