"""Bodies of the tournament service's endpoints (``svc.tournaments.<name>``, msgpack).

A write is a command for one tournament with an optional client-chosen
``command_id`` (the same id twice has the effect of once). The caller (the
lobby) fills in who asks from the player's token; the service fills in the
time. Reads answer from the projections: what anyone may see, never a round's
deal seed before the round is over.
"""

from __future__ import annotations

from typing import Annotated, Any, Generic, Literal, TypeVar

import msgspec

from schemas.bounds import Count, Int64, line, text, whole
from schemas.subjects import ID_PATTERN
from schemas.tournaments.events import FormatKind, TournamentEvent, TournamentTerms

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


class GetEvents(msgspec.Struct, frozen=True, kw_only=True):
    tournament_id: str
    after: Count = 0  # the last version the caller holds
    limit: Annotated[int, msgspec.Meta(ge=1, le=1000)] = 500


class RecordedEvent(msgspec.Struct, frozen=True, kw_only=True):
    """One version of the stream; ``event`` is None for a match's result in a duplicate
    tournament (``MatchResult``, ``ResultOverridden``): tables still playing the same
    deals would learn from it; the view shows a round's results once it is over."""

    version: int
    event: TournamentEvent | None


class WithheldGames(msgspec.Struct, frozen=True, kw_only=True):
    """Ask which games a player may not see (``svc.tournaments.withheld``)."""

    player_id: str


class GamesWithheld(msgspec.Struct, frozen=True, kw_only=True):
    """The games of the duplicate rounds ``player_id`` still plays in, but not at: the
    other tables of a round whose deals the player's own match has not finished."""

    game_ids: list[str]


class TournamentEvents(msgspec.Struct, frozen=True, kw_only=True):
    """The tournament's stream after ``after``, as anyone may see it (deal seeds only once
    their round is over); ``version`` is the stream's version now."""

    tournament_id: str
    version: int
    events: list[RecordedEvent]


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
    # Duplicate deals: [home, away] score per deal, in order, once the round is over.
    deals: list[list[int]] = msgspec.field(default_factory=list)
    # Which part of the format the match is in, and its round's name (RoundView).
    stage: str = ""
    round_name: str = ""
    # The match's game once it began ("" for a bye, a no-show, a result set without one):
    # watched, a few tricks behind, while the match has no outcome, replayed by its
    # players once it has.
    game_id: str = ""


class DuplicateView(msgspec.Struct, frozen=True, kw_only=True):
    """A team's duplicate score over the rounds that are over: per deal, a matchpoint
    for each team that held the same cards and did worse, half for each that did as
    well; ``top`` is the most it could have earned."""

    matchpoints: float
    top: float
    percent: float


class StandingView(msgspec.Struct, frozen=True, kw_only=True):
    team_id: str
    rank: int
    match_points: float
    buchholz: float
    head_to_head: float
    differential: int
    bags: int
    points: int
    duplicate: DuplicateView | None = None  # with duplicate deals only
    seed: int | None = None  # the last tie-break of every format
    # Knockouts only (null elsewhere): the round of the team's furthest match (a bye or a
    # walkover counts), that round's name ("Semi-finals", "Losers' round 3"), and whether
    # the team is out.
    reached: int | None = None
    reached_round: str | None = None
    eliminated: bool | None = None


class RoundView(msgspec.Struct, frozen=True, kw_only=True):
    """One round as the format calls it. ``stage`` tells apart rounds of one number in
    different parts of a bracket: ``rounds`` (Swiss, round robins), ``bracket`` and
    ``third_place`` (single elimination), ``winners``, ``losers`` and ``grand_final``
    (double elimination)."""

    stage: str
    round_no: int
    name: str


class TournamentSummary(msgspec.Struct, frozen=True, kw_only=True):
    tournament_id: str
    name: str
    status: str
    format: FormatKind  # one of the format names; docs/tournaments.md says what each plays
    organizer: str
    starts_at: int  # ms since the epoch: as set, until it starts; then when it started
    champion: str | None
    champion_name: str = ""  # the champion team's name; "" while there is none
    # The check-in window as set (ms since the epoch), null without a check-in; starting
    # the tournament (at starts_at, or earlier by the organizer) ends it.
    check_in_opens_at: int | None = None
    check_in_closes_at: int | None = None


class TournamentView(msgspec.Struct, frozen=True, kw_only=True):
    summary: TournamentSummary
    settings: dict[str, Any]  # the TournamentSettings
    version: int
    teams: list[TeamView]
    matches: list[MatchView]
    standings: list[StandingView]
    # Every round the tournament plays, named by its format ("Round 2", "Semi-finals",
    # "Final"), stage by stage in order; empty before the start.
    rounds: list[RoundView] = msgspec.field(default_factory=list)
    # The standings' fields that decide the order, most important first: what a client
    # shows for this format (a knockout: reached, eliminated, ..., never buchholz).
    standings_columns: list[str] = msgspec.field(default_factory=list)
    # Display names by player id (the teams' players and the organizer): the tournament
    # service knows players by id only; the lobby, which owns the accounts, fills these in.
    names: dict[str, str] = msgspec.field(default_factory=dict)


class TournamentList(msgspec.Struct, frozen=True, kw_only=True):
    tournaments: list[TournamentSummary]


# --- The lobby's HTTP bodies (``/v1/tournaments``) -----------------------------------------

TeamName = Annotated[str, line(40)]
PlayerRef = Annotated[str, msgspec.Meta(pattern=ID_PATTERN)]
Why = Annotated[str, text(500)]


DEFAULT_RULES = {"preset": "quick", "abandon": "forfeit"}


class TournamentBody(TournamentTerms, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """``POST /v1/tournaments`` and ``PATCH``: the terms, and the rules as a private table's
    are given (a preset name, or ``{"preset": ..., overrides}``); by default quick games
    where leaving forfeits for the pair."""

    rules: str | dict[str, Any] = msgspec.field(default_factory=lambda: dict(DEFAULT_RULES))


class RegisterTeamBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The caller registers a team with a registered partner, named by ``partner_name``
    (as a person types it: any case, look-alike letters alike) or by ``partner`` (an
    id), one of the two; the partner gets a ``tournament_invite`` note and confirms."""

    partner: PlayerRef | None = None
    partner_name: Annotated[str, line(32)] | None = None
    name: TeamName


class OverrideBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    outcome: Literal["home", "away", "draw", "double_forfeit"]
    why: Why
    scores: tuple[Int64, Int64] = (0, 0)


class BotTeamBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    name: TeamName
    level: Literal["beginner", "basic", "expert"] = "basic"


class SeedsBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Team ids, top seed first; teams not named follow by rating."""

    order: Annotated[tuple[PlayerRef, ...], msgspec.Meta(max_length=16_384)]


class PairingsBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The next Swiss round: (home, away) team ids, and the team with the bye if odd."""

    pairs: Annotated[tuple[tuple[PlayerRef, PlayerRef], ...], msgspec.Meta(max_length=8_192)]
    bye: Annotated[str, msgspec.Meta(pattern=whole(r"[A-Za-z0-9_-]{0,64}"))] = ""


class WaiveBanBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    player: PlayerRef


class DisqualifyBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    why: Why


class TournamentChanged(msgspec.Struct, frozen=True, kw_only=True):
    """The answer to a write: the stream's version after it, the events it added (none
    for a repeat), and the team's id when a team was registered."""

    tournament_id: str
    version: int
    events: list[str]
    team_id: str | None = None


class Bracket(msgspec.Struct, frozen=True, kw_only=True):
    """The matches paired so far, by round (elimination: as their teams became known)."""

    tournament_id: str
    format: FormatKind  # one of the format names; docs/tournaments.md says what each plays
    rounds: list[list[MatchView]]


class Standings(msgspec.Struct, frozen=True, kw_only=True):
    tournament_id: str
    standings: list[StandingView]
