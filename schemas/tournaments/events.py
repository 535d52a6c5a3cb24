"""Tournament events: the facts a tournament's stream (``tournament-<id>``) is made of.

The same conventions as the game's events: past tense, frozen, tagged by
``type``, versioned by ``VERSION``, never changed once stored. Every table the
tournament service keeps (tournaments, teams, matches, standings) is a
projection of these, so each event carries what its projection needs and
nothing a fold of earlier events already says.

Times (``at``, ``starts_at`` ...) are integer milliseconds since the Unix epoch.
Match points are counted in half points (a win is 2, a draw 1), so every sum is
an integer; readers divide by two.
"""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal

import msgspec

from schemas.bounds import Ms, line
from schemas.rules import Rules

FormatKind = Literal["single_elimination", "double_elimination", "round_robin", "swiss",
                     "double_round_robin"]
Deals = Literal["random", "duplicate"]
TieBreak = Literal["buchholz", "head_to_head", "differential", "bags", "points"]
# Who won a match: the home team (seats 0 and 2), the away team, nobody (a draw), or
# nobody because neither team came (both lose).
Outcome = Literal["home", "away", "draw", "double_forfeit"]
ResultReason = Literal["played", "forfeit", "no_show", "override"]
SourceKind = Literal["seed", "winner", "loser"]


class FormatOptions(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """The format and its options, as the organizer chose them."""

    kind: FormatKind
    third_place: bool = False  # single elimination: the semi-final losers play for third
    grand_final_reset: bool = True  # double elimination: a second final if the losers' side wins
    groups: Annotated[int, msgspec.Meta(ge=1, le=64)] = 1  # round robin: snake-seeded groups
    rounds: Annotated[int, msgspec.Meta(ge=0, le=64)] = 0  # Swiss: 0 means ceil(log2(teams))
    deals: Deals = "random"  # "duplicate": every table of a round plays the same deals
    late_join: bool = False  # Swiss: teams may join until half the rounds have started
    tiebreaks: tuple[TieBreak, ...] = ()  # empty: the format's default order


class TournamentTerms(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """What an organizer sets, but the rules: the settings' own fields, shared with the
    lobby's body, which names the rules as a preset with overrides."""

    name: Annotated[str, line(80)]
    format: FormatOptions
    rated: bool = False
    min_teams: Annotated[int, msgspec.Meta(ge=2, le=16_384)] = 4
    max_teams: Annotated[int, msgspec.Meta(ge=2, le=16_384)] = 64
    registration_opens_at: Ms = 0
    registration_closes_at: Ms
    check_in_minutes: Annotated[int, msgspec.Meta(ge=0, le=24 * 60)] = 15
    starts_at: Ms
    round_interval_seconds: Annotated[int, msgspec.Meta(ge=0, le=86_400)] = 60
    # The ready check of each match: players who have not pressed Ready by then are absent.
    no_show_seconds: Annotated[int, msgspec.Meta(ge=5, le=3_600)] = 300


class TournamentSettings(TournamentTerms, frozen=True, forbid_unknown_fields=True,
                         kw_only=True):
    """Everything an organizer sets, at creation or by a later change before the start:
    the terms and the rules, whole."""

    rules: Rules


class Source(msgspec.Struct, frozen=True, kw_only=True):
    """Where one side of a bracket match comes from: a seed, or a match's winner or loser."""

    kind: SourceKind
    ref: str  # the seed number ("1" is the top seed) or a match id


class BracketMatch(msgspec.Struct, frozen=True, kw_only=True):
    """One match of an elimination bracket, drawn before any is played."""

    match_id: str  # "W2-1": winners' round 2, match 1; "L3-2", "GF", "GF2", "3P"
    round_no: int
    home: Source
    away: Source
    reset_of: str = ""  # a grand-final reset: played only if ``away`` won match ``reset_of``


class Pairing(msgspec.Struct, frozen=True, kw_only=True):
    """Two teams that meet: ``home`` sits in seats 0 and 2, ``away`` in seats 1 and 3."""

    match_id: str
    round_no: int
    home: str
    away: str


class Event(msgspec.Struct, frozen=True, tag=True, tag_field="type", kw_only=True):
    VERSION: ClassVar[int] = 1
    at: int = 0


class TournamentCreated(Event, frozen=True):
    tournament_id: str
    organizer: str
    settings: TournamentSettings


class SettingsChanged(Event, frozen=True):
    """The organizer changed the settings before the start; the whole new value."""

    by: str
    settings: TournamentSettings


class TeamRegistered(Event, frozen=True):
    """A player registered a team with a partner, who has yet to confirm."""

    team_id: str
    name: str
    players: tuple[str, str]  # the registering player, then the partner
    rating: float = 0.0  # mean rating of the two, for seeding


class TeamConfirmed(Event, frozen=True):
    """The partner confirmed. ``waiting`` when the field was already full: the team
    moves up at the check-in's close if it checked in and a place is free."""

    team_id: str
    waiting: bool = False


class TeamWithdrawn(Event, frozen=True):
    """A team left: by its own wish, the check-in, two forfeits, or a disqualification."""

    team_id: str
    reason: Literal["withdrawn", "not_checked_in", "forfeits", "disqualified"]
    by: str = ""
    why: str = ""


class TeamJoined(Event, frozen=True):
    """A team confirmed after the start of a Swiss tournament with late join: it is paired
    from the next round on, and gets one half-point bye (``round_no``) for what it missed."""

    team_id: str
    round_no: int


class TeamCheckedIn(Event, frozen=True):
    team_id: str
    player: str


class CheckInClosed(Event, frozen=True):
    """At ``starts_at``: absent teams dropped, checked-in waiting teams moved up."""

    dropped: tuple[str, ...]
    promoted: tuple[str, ...]


class TournamentStarted(Event, frozen=True):
    seeds: tuple[str, ...]  # team ids, top seed first


class BracketDrawn(Event, frozen=True):
    """An elimination bracket, whole; its matches are played as their teams become known."""

    matches: tuple[BracketMatch, ...]


class MatchesPaired(Event, frozen=True):
    """Elimination matches whose two teams became known; their tables may open."""

    pairings: tuple[Pairing, ...]


class RoundPaired(Event, frozen=True):
    """A Swiss or round-robin round. ``deal_seed_hash`` commits to the round's deals
    (duplicate deals) before any is played; ``RoundCompleted`` reveals the seed."""

    round_no: int
    pairings: tuple[Pairing, ...]
    byes: tuple[str, ...] = ()
    deal_seed_hash: str = ""
    deal_seed: str = ""  # secret until the round completes; never shown before


CallState = Literal["ready_check", "started"]


class MatchCalled(Event, frozen=True):
    """The lobby recorded the match's table and game (``svc.lobby.open_match``): its
    players are asked to be ready by ``ready_by`` (``ready_check``), or the game began
    (``started``). Results and no-shows name the match by ``game_id``."""

    match_id: str
    game_id: str
    table_id: str
    state: CallState
    ready_by: int = 0  # ms since the epoch; 0 once started


class DealResult(msgspec.Struct, frozen=True, kw_only=True):
    """One deal of a match: each team's score for the hand (its delta)."""

    deal_no: int
    home: int
    away: int


class MatchResult(Event, frozen=True):
    """A match's result, written once; only ``ResultOverridden`` changes it. Version 2
    names the players who stayed away from a no-show (``absent``): they are banned from
    registering for a while."""

    VERSION: ClassVar[int] = 2

    match_id: str
    outcome: Outcome
    reason: ResultReason
    scores: tuple[int, int] = (0, 0)  # home, away: game points
    bags_taken: tuple[int, int] = (0, 0)
    deals: tuple[DealResult, ...] = ()
    game_stream: str = ""  # the game the result came from, when played
    absent: tuple[str, ...] = ()  # no_show: the players who did not come


class BanWaived(Event, frozen=True):
    """The organizer lets a player with a no-show ban register here all the same."""

    player: str
    by: str


class SeedsSet(Event, frozen=True):
    """The organizer's seeding, before the start: these teams first, in this order; any
    other team after them by rating."""

    by: str
    order: tuple[str, ...]


class PairingsSet(Event, frozen=True):
    """The organizer's pairings for a Swiss round not yet paired: used instead of the
    computed ones when the round is paired."""

    by: str
    round_no: int
    pairs: tuple[tuple[str, str], ...]  # (home, away)
    bye: str = ""


class ResultOverridden(Event, frozen=True):
    match_id: str
    outcome: Outcome
    scores: tuple[int, int]
    by: str
    why: str


class RoundCompleted(Event, frozen=True):
    round_no: int
    deal_seed: str = ""  # the committed seed, revealed (duplicate deals)


class TournamentFinished(Event, frozen=True):
    champion: str | None
    ranking: tuple[str, ...]  # team ids, first place first


class TournamentCancelled(Event, frozen=True):
    reason: Literal["organizer", "too_few_teams"]
    by: str = ""


TournamentEvent = (
    TournamentCreated | SettingsChanged | TeamRegistered | TeamConfirmed | TeamWithdrawn
    | TeamCheckedIn | CheckInClosed | TournamentStarted | BracketDrawn | MatchesPaired
    | RoundPaired | MatchCalled | MatchResult | ResultOverridden | RoundCompleted
    | TournamentFinished | TournamentCancelled | BanWaived | SeedsSet | PairingsSet | TeamJoined
)

def public(event: Event, duplicate: bool = False) -> Event | None:
    """The event as anyone may see it: a round's deal seed stays secret until
    ``RoundCompleted`` reveals it, and a table's score per deal is left out (a table
    still playing the same deals would learn from it); the tournament's view shows the
    deals once their round is over. In a ``duplicate`` tournament a match's result is
    left out whole (None): its score and winner tell of the deals as much."""
    if isinstance(event, RoundPaired) and event.deal_seed:
        return msgspec.structs.replace(event, deal_seed="")
    if duplicate and isinstance(event, MatchResult | ResultOverridden):
        return None
    if isinstance(event, MatchResult) and event.deals:
        return msgspec.structs.replace(event, deals=())
    return event


TOURNAMENT_EVENT_TYPES: dict[str, type[Event]] = {
    cls.__name__: cls
    for cls in (TournamentCreated, SettingsChanged, TeamRegistered, TeamConfirmed,
                TeamWithdrawn, TeamCheckedIn, CheckInClosed, TournamentStarted, BracketDrawn,
                MatchesPaired, RoundPaired, MatchCalled, MatchResult, ResultOverridden,
                RoundCompleted,
                TournamentFinished, TournamentCancelled, BanWaived, SeedsSet, PairingsSet,
                TeamJoined)
}
