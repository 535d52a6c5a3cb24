"""Tournament decisions: ``decide(state, command) -> events``, pure.

A command either yields every event it causes, the follow-ons included (a
result that completes a round, a bye that advances a team, a second forfeit
that withdraws a team, the final that names the champion), or raises a
``TournamentError`` and yields nothing. Asking twice for what is already so
(the same registration, confirmation, check-in or result) yields no events,
so a retried command has the effect of one.

What differs between formats (their options, the draw, pairing a round, what
follows a result, tie-breaks, draws, late join) is asked of the tournament's
``Format`` (``formats/``); nothing here names a format.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Collection
from typing import Any

from schemas.tournaments import commands as cmd
from schemas.tournaments import events as ev
from services.tournaments import formats, registration
from services.tournaments.errors import TournamentError
from services.tournaments.formats import TieBreakError
from services.tournaments.guards import (
    format_of,
    in_status,
    not_over,
    organizer_only,
    team_named,
)
from services.tournaments.registration import bot_level as bot_level
from services.tournaments.standings import Row
from services.tournaments.state import Tournament

RANKED_PRESET = "ranked"
FORFEITS_TO_WITHDRAW = 2
_MIN_SEED_BYTES = 16


# Commands whose events never make anything follow (no result, team or round changes):
# deciding them skips the settling pass, which a round's 256 calls would pay 256 times.
_SETTLED = frozenset({cmd.CallMatch, cmd.WaiveBan, cmd.SetPairings, cmd.SetSeeds,
                      cmd.AddBotTeam})


def decide(state: Tournament, command: cmd.TournamentCommand, *,
           fold: bool = False) -> list[ev.Event]:
    """The events ``command`` adds. ``state`` is left as it was, unless ``fold``: then the
    events are applied to it, which spares a copy of the whole state to a caller that
    would apply them anyway (a round's 256 results decided in a row). A refusal changes
    nothing either way."""
    events = _HANDLERS[type(command)](state, command)
    if (not events or state.status not in ("running", "registering")
            or type(command) in _SETTLED):
        for event in events if fold else ():
            state.apply(event)
        return events
    scratch = state if fold else state.copy()
    for event in events:
        scratch.apply(event)
    try:
        while scratch.status == "running" and (more := settle(scratch, command.at)):
            for event in more:
                scratch.apply(event)
            events += more
    except TournamentError as exc:
        if fold:  # applied in part: no refusal may leave the caller's state so
            raise RuntimeError(f"settling after {type(command).__name__} failed") from exc
        raise
    return events


def settle(state: Tournament, at: int) -> list[ev.Event]:
    """What must follow from the state as it is: matches whose teams are known get
    paired, a withdrawn team's matches are forfeited, a second forfeit withdraws its
    team, a round whose results are all in completes, and the last one finishes the
    tournament. Empty when nothing follows; ``decide`` repeats it until then."""
    for team_id in state.seeds:
        team = state.teams[team_id]
        if team.forfeits >= FORFEITS_TO_WITHDRAW and not team.withdrawn:
            return [ev.TeamWithdrawn(at=at, team_id=team_id, reason="forfeits")]
    out = {t for t in state.seeds if state.teams[t].withdrawn}
    forfeits: list[ev.Event] = []
    for m in state.matches.values() if out else ():  # none out: nothing to forfeit
        outcome = _forfeit_outcome(m.pairing, out) if m.outcome is None else None
        if outcome:
            forfeits.append(ev.MatchResult(at=at, match_id=m.pairing.match_id,
                                           outcome=outcome, reason="forfeit"))
    if forfeits:
        return forfeits
    return format_of(state).settle(state, at)


# --- Settings ------------------------------------------------------------------------------


def _check_settings(s: ev.TournamentSettings) -> None:
    fmt = formats.of(s.format.kind)
    if s.max_teams < s.min_teams:
        raise TournamentError("max_below_min", "max_teams must be at least min_teams")
    if not s.registration_opens_at < s.registration_closes_at <= s.starts_at:
        raise TournamentError("bad_window", "registration must open before it closes, "
                              "and close no later than the start")
    if s.starts_at - s.check_in_minutes * 60_000 < s.registration_opens_at:
        raise TournamentError("check_in_outside_window",
                              "the check-in would open before registration opens")
    if not fmt.draws and s.rules.tie == "draw":
        raise TournamentError("draw_in_elimination", "this format's matches need a winner; "
                              "choose rules where a tie plays on")
    if not fmt.by_rounds and s.format.deals == "duplicate":
        raise TournamentError("duplicate_needs_rounds",
                              "duplicate deals are for formats paired round by round")
    if s.format.late_join and not fmt.late_join:
        raise TournamentError("late_join_needs_swiss", "this format takes no team after the "
                              "start")
    fmt.check(s)
    try:
        fmt.tiebreak_order(s.format.tiebreaks)
    except TieBreakError as e:
        raise TournamentError("bad_tiebreaks", str(e)) from None
    if s.rated and s.rules.preset != RANKED_PRESET:
        raise TournamentError("rated_needs_ranked_rules",
                              "only a tournament on the ranked preset may be rated")


def _create(state: Tournament, c: cmd.CreateTournament) -> list[ev.Event]:
    if state.settings is not None:
        if (state.tournament_id, state.organizer, state.settings) == (
                c.tournament_id, c.organizer, c.settings):
            return []
        raise TournamentError("tournament_exists", "this tournament was already created")
    _check_settings(c.settings)
    return [ev.TournamentCreated(at=c.at, tournament_id=c.tournament_id, organizer=c.organizer,
                                 settings=c.settings)]


def _change(state: Tournament, c: cmd.ChangeSettings) -> list[ev.Event]:
    organizer_only(state, c.by)
    in_status(state, "registering")
    if c.settings == state.settings:
        return []
    _check_settings(c.settings)
    if c.settings.rated and any(bot_level(t.players[0]) and not t.withdrawn
                                for t in state.teams.values()):
        raise TournamentError("rated_needs_people", "a rated tournament is for people only; "
                              "withdraw the bot teams first")
    return [ev.SettingsChanged(at=c.at, by=c.by, settings=c.settings)]


def _cancel(state: Tournament, c: cmd.Cancel) -> list[ev.Event]:
    organizer_only(state, c.by)
    not_over(state)
    return [ev.TournamentCancelled(at=c.at, reason="organizer", by=c.by)]


# --- Rounds (formats paired round by round) ------------------------------------------------


def _pair_round(state: Tournament, c: cmd.PairRound) -> list[ev.Event]:
    s = in_status(state, "running")
    fmt = formats.of(s.format.kind)
    if not fmt.by_rounds:
        raise TournamentError("not_paired_by_rounds",
                              "this format pairs a match as soon as its teams are known")
    if state.rounds and not state.rounds[-1].completed:
        raise TournamentError("round_in_progress", "the current round is not over")
    if len(state.rounds) >= fmt.rounds(s.format, state.entrants):
        raise TournamentError("no_more_rounds", "every round has been played")
    try:
        seed_bytes = bytes.fromhex(c.seed)
    except ValueError:
        seed_bytes = b""
    if len(seed_bytes) < _MIN_SEED_BYTES:
        raise TournamentError("bad_seed", "a round's seed is at least 16 bytes of hex")
    round_no = len(state.rounds) + 1
    pairs, byes = fmt.pair(state, round_no, c.seed)
    pairings = tuple(ev.Pairing(match_id=f"R{round_no}-{i + 1}", round_no=round_no,
                                home=home, away=away) for i, (home, away) in enumerate(pairs))
    duplicate = s.format.deals == "duplicate"
    return [ev.RoundPaired(
        at=c.at, round_no=round_no, pairings=pairings, byes=tuple(byes),
        deal_seed_hash=hashlib.sha256(seed_bytes).hexdigest() if duplicate else "",
        deal_seed=c.seed if duplicate else "")]


def standings_of(state: Tournament) -> list[Row]:
    """The tournament's standings now, with its format's bye value and tie-breaks."""
    return format_of(state).standings(state)


def _forfeit_outcome(p: ev.Pairing, out: Collection[str]) -> ev.Outcome | None:
    if p.home in out and p.away in out:
        return "double_forfeit"
    if p.home in out:
        return "away"
    return "home" if p.away in out else None


# --- Results -------------------------------------------------------------------------------


def _match(state: Tournament, match_id: str) -> Any:
    m = state.matches.get(match_id)
    if m is None:
        raise TournamentError("no_match", f"no match {match_id} has been paired")
    return m


def _no_draw(s: ev.TournamentSettings, outcome: ev.Outcome) -> None:
    if outcome == "draw" and not formats.of(s.format.kind).draws:
        raise TournamentError("draw_not_allowed", "a match of this format has a winner")


def _record(state: Tournament, c: cmd.RecordResult) -> list[ev.Event]:
    s = in_status(state, "running")
    m = _match(state, c.match_id)
    if m.outcome is not None:
        if (m.outcome, m.scores, m.game_stream) == (c.outcome, c.scores, c.game_stream):
            return []
        raise TournamentError("result_exists", "the match already has a result")
    _no_draw(s, c.outcome)
    return [ev.MatchResult(at=c.at, match_id=c.match_id, outcome=c.outcome, reason=c.reason,
                           scores=c.scores, bags_taken=c.bags_taken, deals=c.deals,
                           game_stream=c.game_stream, absent=c.absent)]


def _call(state: Tournament, c: cmd.CallMatch) -> list[ev.Event]:
    in_status(state, "running")
    m = _match(state, c.match_id)
    if m.outcome is not None:
        raise TournamentError("result_exists", "the match already has a result")
    if m.call == "started" or (m.call, m.game_id, m.ready_by) == (c.state, c.game_id,
                                                                   c.ready_by):
        return []
    return [ev.MatchCalled(at=c.at, match_id=c.match_id, game_id=c.game_id,
                           table_id=c.table_id, state=c.state,
                           ready_by=c.ready_by if c.state == "ready_check" else 0)]


def _override(state: Tournament, c: cmd.OverrideResult) -> list[ev.Event]:
    organizer_only(state, c.by)
    s = in_status(state, "running")
    m = _match(state, c.match_id)
    _no_draw(s, c.outcome)
    if formats.of(s.format.kind).override_too_late(state, m.pairing.match_id):
        raise TournamentError("override_too_late", "a team of this match has been paired "
                              "for its next match")
    return [ev.ResultOverridden(at=c.at, match_id=c.match_id, outcome=c.outcome,
                                scores=c.scores, by=c.by, why=c.why)]


def _set_seeds(state: Tournament, c: cmd.SetSeeds) -> list[ev.Event]:
    organizer_only(state, c.by)
    in_status(state, "registering")
    unknown = [t for t in c.order if t not in state.teams]
    if unknown or len(set(c.order)) != len(c.order):
        raise TournamentError("bad_seeds", "name each registered team at most once"
                              + (f"; unknown: {', '.join(unknown[:5])}" if unknown else ""))
    if c.order == state.hand_seeds:
        return []
    return [ev.SeedsSet(at=c.at, by=c.by, order=c.order)]


def _set_pairings(state: Tournament, c: cmd.SetPairings) -> list[ev.Event]:
    organizer_only(state, c.by)
    s = in_status(state, "running")
    fmt = formats.of(s.format.kind)
    if not fmt.hand_pairings:
        raise TournamentError("not_swiss", "this format's rounds are not paired by "
                              "hand")
    if c.round_no != len(state.rounds) + 1 or c.round_no > fmt.rounds(s.format, state.entrants):
        raise TournamentError("bad_round", f"round {len(state.rounds) + 1} is the next to pair")
    active = {t for t in state.seeds if not state.teams[t].withdrawn}
    named = [t for pair in c.pairs for t in pair] + ([c.bye] if c.bye else [])
    if sorted(named) != sorted(active) or any(a == b for a, b in c.pairs):
        raise TournamentError("bad_pairings", "pair every team still in exactly once, with "
                              "a bye for one team when their number is odd")
    if len(active) % 2 == 0 and c.bye:
        raise TournamentError("bad_pairings", "a bye only when the number of teams is odd")
    before = state.hand_pairings.get(c.round_no)
    if before is not None and (before.pairs, before.bye) == (c.pairs, c.bye):
        return []
    return [ev.PairingsSet(at=c.at, by=c.by, round_no=c.round_no, pairs=c.pairs, bye=c.bye)]


def _waive(state: Tournament, c: cmd.WaiveBan) -> list[ev.Event]:
    organizer_only(state, c.by)
    not_over(state)
    if c.player in state.waived:
        return []
    return [ev.BanWaived(at=c.at, player=c.player, by=c.by)]


def _disqualify(state: Tournament, c: cmd.Disqualify) -> list[ev.Event]:
    organizer_only(state, c.by)
    not_over(state)
    team = team_named(state, c.team_id)
    if team.withdrawn:
        return []
    return [ev.TeamWithdrawn(at=c.at, team_id=c.team_id, reason="disqualified", by=c.by,
                             why=c.why)]


_HANDLERS: dict[type, Callable[[Tournament, Any], list[ev.Event]]] = {
    cmd.CreateTournament: _create,
    cmd.ChangeSettings: _change,
    cmd.Cancel: _cancel,
    cmd.RegisterTeam: registration.register,
    cmd.ConfirmTeam: registration.confirm,
    cmd.CheckIn: registration.check_in,
    cmd.WithdrawTeam: registration.withdraw,
    cmd.Start: registration.start,
    cmd.StartNow: registration.start_now,
    cmd.PairRound: _pair_round,
    cmd.CallMatch: _call,
    cmd.RecordResult: _record,
    cmd.OverrideResult: _override,
    cmd.Disqualify: _disqualify,
    cmd.WaiveBan: _waive,
    cmd.SetSeeds: _set_seeds,
    cmd.SetPairings: _set_pairings,
    cmd.AddBotTeam: registration.add_bots,
}
