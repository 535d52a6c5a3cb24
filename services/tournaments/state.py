"""A tournament as the fold of its stream.

``Tournament.apply`` is the only writer; ``decide`` reads a state and never
changes it. The fold mutates in place (a 16,384-team stream has tens of
thousands of events; copying the team table for each would make a replay
quadratic), so a caller that must keep an old state folds a new one.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

from schemas.tournaments import events as ev
from services.tournaments.standings import Ledger, Result

Status = Literal["new", "registering", "running", "finished", "cancelled"]


@dataclass(slots=True)
class Team:
    team_id: str
    name: str
    players: tuple[str, str]
    rating: float
    confirmed: bool = False
    waiting: bool = False
    checked_in: set[str] = field(default_factory=set)
    withdrawn: str = ""  # the reason, once out
    forfeits: int = 0


@dataclass(slots=True)
class MatchState:
    pairing: ev.Pairing
    outcome: ev.Outcome | None = None
    reason: ev.ResultReason = "played"
    scores: tuple[int, int] = (0, 0)
    bags_taken: tuple[int, int] = (0, 0)
    deals: tuple[ev.DealResult, ...] = ()
    game_stream: str = ""
    paired_at: int = 0
    call: str = ""  # "", "ready_check" or "started": what the lobby last answered
    game_id: str = ""
    table_id: str = ""
    ready_by: int = 0
    started_at: int = 0  # when the lobby said the game began


@dataclass(slots=True)
class Round:
    round_no: int
    match_ids: list[str]
    byes: tuple[str, ...]
    deal_seed_hash: str
    deal_seed: str
    completed: bool = False


@dataclass(slots=True)
class Tournament:
    tournament_id: str = ""
    organizer: str = ""
    settings: ev.TournamentSettings | None = None
    status: Status = "new"
    version: int = 0  # events applied
    teams: dict[str, Team] = field(default_factory=dict)
    seeds: tuple[str, ...] = ()
    bracket: tuple[ev.BracketMatch, ...] = ()
    matches: dict[str, MatchState] = field(default_factory=dict)
    rounds: list[Round] = field(default_factory=list)
    champion: str | None = None
    ranking: tuple[str, ...] = ()
    turned_at: int = 0  # when it started or last completed a round: the next pairing counts from it
    started_at: int = 0  # when it started: the settings' starts_at, or earlier by the organizer
    waived: set[str] = field(default_factory=set)  # players whose no-show ban is waived here
    hand_seeds: tuple[str, ...] = ()  # the organizer's seeding, top first
    entrants: int = 0  # teams at the start: what the number of rounds follows
    half_byes: list[tuple[int, str]] = field(default_factory=list)  # late joiners' (round, team)
    hand_pairings: dict[int, ev.PairingsSet] = field(default_factory=dict)  # by round
    ledger: Ledger = field(default_factory=Ledger)  # the results tallied, for standings

    def copy(self) -> Tournament:
        """A state to fold further without touching this one."""
        return replace(
            self,
            teams={k: replace(t, checked_in=set(t.checked_in)) for k, t in self.teams.items()},
            matches={k: replace(m) for k, m in self.matches.items()},
            rounds=[replace(r, match_ids=list(r.match_ids)) for r in self.rounds],
            waived=set(self.waived), hand_pairings=dict(self.hand_pairings),
            half_byes=list(self.half_byes), ledger=self.ledger.copy())

    def team_of(self, player: str) -> Team | None:
        """The active team (not withdrawn) a player belongs to, if any."""
        for team in self.teams.values():
            if player in team.players and not team.withdrawn:
                return team
        return None

    def results(self) -> list[Result]:
        """Every decided match, for standings (``ledger`` holds them tallied)."""
        return [r for m in self.matches.values() if (r := result_of(m)) is not None]

    def byes(self) -> list[tuple[int, str]]:
        return [(r.round_no, team) for r in self.rounds for team in r.byes]

    def apply(self, event: ev.Event) -> None:
        """Fold one event of the stream in; each concern's events change only its part."""
        self.version += 1
        if not self._registration(event) and not self._matches(event):
            self._progress(event)

    def _registration(self, event: ev.Event) -> bool:
        """The teams' events, from registration to check-in: whether ``event`` was one."""
        match event:
            case ev.TeamRegistered():
                self.teams[event.team_id] = Team(event.team_id, event.name, event.players,
                                                 event.rating)
            case ev.TeamConfirmed():
                team = self.teams[event.team_id]
                team.confirmed, team.waiting = True, event.waiting
            case ev.TeamCheckedIn():
                self.teams[event.team_id].checked_in.add(event.player)
            case ev.TeamWithdrawn():
                self.teams[event.team_id].withdrawn = event.reason
            case ev.CheckInClosed():
                for team_id in event.dropped:
                    self.teams[team_id].withdrawn = "not_checked_in"
                for team_id in event.promoted:
                    self.teams[team_id].waiting = False
            case ev.BanWaived():
                self.waived.add(event.player)
            case _:
                return False
        return True

    def _matches(self, event: ev.Event) -> bool:
        """A match's events, paired to result: whether ``event`` was one."""
        match event:
            case ev.MatchesPaired():
                for p in event.pairings:
                    self.matches[p.match_id] = MatchState(p, paired_at=event.at)
            case ev.MatchCalled():
                m = self.matches[event.match_id]
                m.call, m.game_id, m.table_id = event.state, event.game_id, event.table_id
                m.ready_by = event.ready_by
                m.started_at = event.at if event.state == "started" else 0
            case ev.MatchResult():
                m = self.matches[event.match_id]
                m.outcome, m.reason, m.scores = event.outcome, event.reason, event.scores
                m.bags_taken, m.deals = event.bags_taken, event.deals
                m.game_stream = event.game_stream
                self._tally(m)
                if event.reason in ("forfeit", "no_show"):
                    for side in losers(event.outcome, m.pairing):
                        self.teams[side].forfeits += 1
            case ev.ResultOverridden():
                m = self.matches[event.match_id]
                m.outcome, m.reason, m.scores = event.outcome, "override", event.scores
                self._tally(m)
            case _:
                return False
        return True

    def _tally(self, m: MatchState) -> None:
        """A match's result, new or overridden, into the ledger."""
        result = result_of(m)
        assert result is not None
        self.ledger.record(m.pairing.match_id, result)

    def _progress(self, event: ev.Event) -> None:
        """The tournament's own course: created, started, its rounds and bracket, its end."""
        match event:
            case ev.TournamentCreated():
                self.tournament_id, self.organizer = event.tournament_id, event.organizer
                self.settings, self.status = event.settings, "registering"
            case ev.SettingsChanged():
                self.settings = event.settings
            case ev.TournamentStarted():
                self.seeds, self.status, self.turned_at = event.seeds, "running", event.at
                self.started_at = event.at
                self.entrants = len(event.seeds)
            case ev.TeamJoined():
                self.seeds += (event.team_id,)
                self.half_byes.append((event.round_no, event.team_id))
            case ev.BracketDrawn():
                self.bracket = event.matches
            case ev.RoundPaired():
                for p in event.pairings:
                    self.matches[p.match_id] = MatchState(p, paired_at=event.at)
                self.rounds.append(Round(event.round_no, [p.match_id for p in event.pairings],
                                         event.byes, event.deal_seed_hash, event.deal_seed))
            case ev.RoundCompleted():
                self.rounds[event.round_no - 1].completed = True
                self.turned_at = event.at
            case ev.TournamentFinished():
                self.status, self.champion = "finished", event.champion
                self.ranking = event.ranking
            case ev.TournamentCancelled():
                self.status = "cancelled"
            case ev.SeedsSet():
                self.hand_seeds = event.order
            case ev.PairingsSet():
                self.hand_pairings[event.round_no] = event


def result_of(m: MatchState) -> Result | None:
    """The match's result as standings need it; None while it has none."""
    if m.outcome is None:
        return None
    return Result(round_no=m.pairing.round_no, home=m.pairing.home, away=m.pairing.away,
                  outcome=m.outcome, reason=m.reason, scores=m.scores, bags_taken=m.bags_taken)


def losers(outcome: ev.Outcome, p: ev.Pairing) -> tuple[str, ...]:
    return {"home": (p.away,), "away": (p.home,), "draw": (),
            "double_forfeit": (p.home, p.away)}[outcome]


def fold(events: list[ev.Event]) -> Tournament:
    state = Tournament()
    for event in events:
        state.apply(event)
    return state
