"""Bodies of the tournament service's endpoints (``svc.tournaments.<name>``, msgpack).

A write is a command for one tournament with an optional client-chosen
``command_id`` (the same id twice has the effect of once). The caller (the
lobby) fills in who asks from the player's token; the service fills in the
time. Reads answer from the projections: what anyone may see, never a round's
deal seed before the round is over.
"""

from __future__ import annotations

from typing import Annotated, Any, Generic, TypeVar

import msgspec

C = TypeVar("C")


class TournamentRequest(msgspec.Struct, Generic[C], frozen=True, kw_only=True):
    tournament_id: str
    command: C
    command_id: str | None = None


class CommandReply(msgspec.Struct, frozen=True, kw_only=True):
    tournament_id: str
    version: int  # the stream's version after the command
    events: list[str]  # the types of the events the command added (none for a repeat)


class GetTournament(msgspec.Struct, frozen=True, kw_only=True):
    tournament_id: str


class ListTournaments(msgspec.Struct, frozen=True, kw_only=True):
    status: str | None = None  # registering, running, finished, cancelled
    limit: Annotated[int, msgspec.Meta(ge=1, le=500)] = 100


class TeamView(msgspec.Struct, frozen=True, kw_only=True):
    team_id: str
    name: str
    players: list[str]
    confirmed: bool
    waiting: bool
    checked_in: list[str]
    withdrawn: str
    seed: int | None


class MatchView(msgspec.Struct, frozen=True, kw_only=True):
    match_id: str
    round_no: int
    home: str
    away: str
    outcome: str | None
    reason: str
    scores: list[int]


class StandingView(msgspec.Struct, frozen=True, kw_only=True):
    team_id: str
    rank: int
    match_points: float
    buchholz: float
    head_to_head: float
    differential: int
    bags: int
    points: int


class TournamentSummary(msgspec.Struct, frozen=True, kw_only=True):
    tournament_id: str
    name: str
    status: str
    format: str
    organizer: str
    starts_at: int  # ms since the epoch
    champion: str | None


class TournamentView(msgspec.Struct, frozen=True, kw_only=True):
    summary: TournamentSummary
    settings: dict[str, Any]  # the TournamentSettings
    version: int
    teams: list[TeamView]
    matches: list[MatchView]
    standings: list[StandingView]


class TournamentList(msgspec.Struct, frozen=True, kw_only=True):
    tournaments: list[TournamentSummary]
