"""Tournament decisions: ``decide(state, command) -> events``, pure.

A command either yields every event it causes, the follow-ons included (a
result that completes a round, a bye that advances a team, a second forfeit
that withdraws a team, the final that names the champion), or raises a
``TournamentError`` and yields nothing. Asking twice for what is already so
(the same registration, confirmation, check-in or result) yields no events,
so a retried command has the effect of one.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Collection
from typing import Any

from schemas import tournament_commands as cmd
from schemas import tournament_events as ev
from services.tournaments import formats
from services.tournaments.errors import TournamentError
from services.tournaments.formats import bracket, round_robin, swiss
from services.tournaments.standings import Row, TieBreakError, standings, tiebreak_order
from services.tournaments.state import Status, Tournament, losers

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
    out = [t for t in state.seeds if state.teams[t].withdrawn]
    forfeits: list[ev.Event] = []
    for m in state.matches.values():
        outcome = _forfeit_outcome(m.pairing, out) if m.outcome is None else None
        if outcome:
            forfeits.append(ev.MatchResult(at=at, match_id=m.pairing.match_id,
                                           outcome=outcome, reason="forfeit"))
    if forfeits:
        return forfeits
    if state.bracket:
        return _settle_bracket(state, at)
    if state.rounds and not state.rounds[-1].completed and all(
            state.matches[m].outcome is not None for m in state.rounds[-1].match_ids):
        last = state.rounds[-1]
        return [ev.RoundCompleted(at=at, round_no=last.round_no, deal_seed=last.deal_seed)]
    settings = _settings(state)
    rounds = formats.total_rounds(settings.format, state.entrants)
    if len(state.rounds) == rounds and state.rounds[-1].completed:
        ranking = tuple(r.team_id for r in standings_of(state))
        return [ev.TournamentFinished(at=at, champion=ranking[0], ranking=ranking)]
    return []


def _settle_bracket(state: Tournament, at: int) -> list[ev.Event]:
    outcomes = {k: m.outcome for k, m in state.matches.items() if m.outcome is not None}
    slots = bracket.resolve(state.bracket, state.seeds, outcomes)
    ready = tuple(ev.Pairing(match_id=m.match_id, round_no=m.round_no,
                             home=slots[m.match_id].home or "", away=slots[m.match_id].away or "")
                  for m in state.bracket
                  if slots[m.match_id].ready and m.match_id not in state.matches)
    if ready:
        return [ev.MatchesPaired(at=at, pairings=ready)]
    if bracket.done(slots):
        champion = bracket.champion(state.bracket, slots)
        return [ev.TournamentFinished(at=at, champion=champion,
                                      ranking=_elimination_ranking(state, slots))]
    return []


def _elimination_ranking(state: Tournament, slots: dict[str, bracket.Slot]) -> tuple[str, ...]:
    """Champion first, then by how far each team went: the round of its last match, the
    final's loser before the third-place match, a match's winner before its loser, then
    the standings (for teams out in the same round)."""
    rounds = {m.match_id: m.round_no for m in state.bracket}
    finals = {"GF", "GF2", max((m for m in state.bracket if m.match_id.startswith("W")),
                               key=lambda m: m.round_no).match_id}
    last: dict[str, tuple[int, int, int]] = {}
    for match_id, m in state.matches.items():
        lost = losers(m.outcome, m.pairing) if m.outcome else ()
        for team in (m.pairing.home, m.pairing.away):
            key = (-rounds[match_id], match_id not in finals, team in lost)
            last[team] = min(last.get(team, key), key)
    position = {r.team_id: i for i, r in enumerate(standings_of(state))}
    never = (1, 1, 1)
    order = sorted(state.seeds, key=lambda t: (last.get(t, never), position[t]))
    return tuple(order)


# --- Settings ------------------------------------------------------------------------------


def _check_settings(s: ev.TournamentSettings) -> None:
    kind = s.format.kind
    if s.max_teams < s.min_teams:
        raise TournamentError("max_below_min", "max_teams must be at least min_teams")
    if not s.registration_opens_at < s.registration_closes_at <= s.starts_at:
        raise TournamentError("bad_window", "registration must open before it closes, "
                              "and close no later than the start")
    if s.starts_at - s.check_in_minutes * 60_000 < s.registration_opens_at:
        raise TournamentError("check_in_outside_window",
                              "the check-in would open before registration opens")
    if kind in formats.ELIMINATION and s.rules.tie == "draw":
        raise TournamentError("draw_in_elimination", "elimination matches need a winner; "
                              "choose rules where a tie plays on")
    if kind in formats.ELIMINATION and s.format.deals == "duplicate":
        raise TournamentError("duplicate_needs_rounds",
                              "duplicate deals are for Swiss and round robin")
    if kind == "swiss" and s.format.rounds > swiss.max_rounds(s.max_teams):
        raise TournamentError("too_many_rounds", f"at most {swiss.max_rounds(s.max_teams)} "
                              f"rounds for {s.max_teams} teams")
    if s.format.late_join and kind != "swiss":
        raise TournamentError("late_join_needs_swiss", "teams may join late in Swiss only")
    if kind == "round_robin" and s.format.groups > s.min_teams // 2:
        raise TournamentError("too_many_groups", "each group needs at least two teams "
                              "(groups at most min_teams / 2)")
    try:
        tiebreak_order(kind, s.format.tiebreaks)
    except TieBreakError as e:
        raise TournamentError("bad_tiebreaks", str(e)) from None
    if s.rated and s.rules.preset != RANKED_PRESET:
        raise TournamentError("rated_needs_ranked_rules",
                              "only a tournament on the ranked preset may be rated")


def _settings(state: Tournament) -> ev.TournamentSettings:
    if state.settings is None:
        raise TournamentError("no_tournament", "no tournament has been created here")
    return state.settings


def _organizer(state: Tournament, by: str) -> ev.TournamentSettings:
    settings = _settings(state)
    if by != state.organizer:
        raise TournamentError("not_organizer", "only the organizer may do this")
    return settings


def _not_over(state: Tournament) -> None:
    if state.status in ("finished", "cancelled"):
        raise TournamentError("tournament_over", f"the tournament is {state.status}")


_NOT_IN = {"registering": ("already_started", "the tournament has started"),
           "running": ("not_running", "the tournament has not started")}


def _in_status(state: Tournament, status: Status) -> ev.TournamentSettings:
    """The settings, if the tournament is in ``status``; else the error saying why not."""
    settings = _settings(state)
    _not_over(state)
    if state.status != status:
        raise TournamentError(*_NOT_IN[status])
    return settings


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
    _organizer(state, c.by)
    _in_status(state, "registering")
    if c.settings == state.settings:
        return []
    _check_settings(c.settings)
    if c.settings.rated and any(bot_level(t.players[0]) and not t.withdrawn
                                for t in state.teams.values()):
        raise TournamentError("rated_needs_people", "a rated tournament is for people only; "
                              "withdraw the bot teams first")
    return [ev.SettingsChanged(at=c.at, by=c.by, settings=c.settings)]


def _cancel(state: Tournament, c: cmd.Cancel) -> list[ev.Event]:
    _organizer(state, c.by)
    _not_over(state)
    return [ev.TournamentCancelled(at=c.at, reason="organizer", by=c.by)]


# --- Registration --------------------------------------------------------------------------


def _team(state: Tournament, team_id: str) -> Any:
    team = state.teams.get(team_id)
    if team is None:
        raise TournamentError("no_team", f"no team {team_id}")
    return team


def late_join_open(state: Tournament) -> bool:
    """A running Swiss tournament with late join, before half its rounds have started."""
    s = state.settings
    return (s is not None and state.status == "running" and s.format.kind == "swiss"
            and s.format.late_join
            and 2 * len(state.rounds) < formats.total_rounds(s.format, state.entrants))


def _registering_or_late(state: Tournament) -> tuple[ev.TournamentSettings, bool]:
    """The settings, and whether this is a late join; else the error saying why not."""
    if late_join_open(state):
        return _settings(state), True
    return _in_status(state, "registering"), False


def _register(state: Tournament, c: cmd.RegisterTeam) -> list[ev.Event]:
    s, late = _registering_or_late(state)
    existing = state.teams.get(c.team_id)
    if existing is not None:
        if existing.players == (c.player, c.partner):
            return []
        raise TournamentError("team_exists", f"team {c.team_id} already exists")
    if not late and not s.registration_opens_at <= c.at < s.registration_closes_at:
        raise TournamentError("registration_closed", "registration is not open now")
    if c.player == c.partner:
        raise TournamentError("self_partner", "a team is two different players")
    if state.team_of(c.player) or state.team_of(c.partner):
        raise TournamentError("already_registered", "a player is already in a team here")
    if banned := [p for p in c.banned if p not in state.waived]:
        raise TournamentError("no_show_ban", f"{', '.join(banned)} missed a match lately and "
                              "may not register yet; the organizer may waive it")
    return [ev.TeamRegistered(at=c.at, team_id=c.team_id, name=c.name,
                              players=(c.player, c.partner), rating=c.rating)]


BOT = "bot:"


def bot_level(player: str) -> str | None:
    """The level of a bot team's player (``bot:<level>:<team>:<n>``), None for a person."""
    return player.split(":")[1] if player.startswith(BOT) else None


def _add_bots(state: Tournament, c: cmd.AddBotTeam) -> list[ev.Event]:
    _organizer(state, c.by)
    s = _in_status(state, "registering")
    if s.rated:
        raise TournamentError("rated_needs_people", "a rated tournament is for people only")
    players = (f"{BOT}{c.level}:{c.team_id}:1", f"{BOT}{c.level}:{c.team_id}:2")
    existing = state.teams.get(c.team_id)
    if existing is not None:
        if existing.players == players:
            return []
        raise TournamentError("team_exists", f"team {c.team_id} already exists")
    placed = sum(1 for t in state.teams.values()
                 if t.confirmed and not t.waiting and not t.withdrawn)
    return [ev.TeamRegistered(at=c.at, team_id=c.team_id, name=c.name, players=players),
            ev.TeamConfirmed(at=c.at, team_id=c.team_id, waiting=placed >= s.max_teams),
            *(ev.TeamCheckedIn(at=c.at, team_id=c.team_id, player=p) for p in players)]


def _confirm(state: Tournament, c: cmd.ConfirmTeam) -> list[ev.Event]:
    s, late = _registering_or_late(state)
    team = _team(state, c.team_id)
    if c.player != team.players[1]:
        raise TournamentError("not_partner", "only the invited partner may confirm")
    if team.confirmed:
        return []
    if team.withdrawn:
        raise TournamentError("no_team", f"team {c.team_id} has withdrawn")
    if late:
        if sum(1 for t in state.seeds if not state.teams[t].withdrawn) >= s.max_teams:
            raise TournamentError("tournament_full", "the tournament has max_teams teams")
        return [ev.TeamConfirmed(at=c.at, team_id=c.team_id),
                ev.TeamJoined(at=c.at, team_id=c.team_id, round_no=max(1, len(state.rounds)))]
    placed = sum(1 for t in state.teams.values()
                 if t.confirmed and not t.waiting and not t.withdrawn)
    return [ev.TeamConfirmed(at=c.at, team_id=c.team_id, waiting=placed >= s.max_teams)]


def _check_in(state: Tournament, c: cmd.CheckIn) -> list[ev.Event]:
    s = _in_status(state, "registering")
    if not s.starts_at - s.check_in_minutes * 60_000 <= c.at < s.starts_at:
        raise TournamentError("check_in_closed", "the check-in is not open now")
    team = state.team_of(c.player)
    if team is None:
        raise TournamentError("not_in_team", "the player is in no team of this tournament")
    if not team.confirmed:
        raise TournamentError("not_confirmed", "the partner has not confirmed the team")
    if c.player in team.checked_in:
        return []
    return [ev.TeamCheckedIn(at=c.at, team_id=team.team_id, player=c.player)]


def _withdraw(state: Tournament, c: cmd.WithdrawTeam) -> list[ev.Event]:
    _settings(state)
    _not_over(state)
    team = _team(state, c.team_id)
    if c.player not in team.players:
        raise TournamentError("not_in_team", "the player is not in this team")
    if team.withdrawn:
        return []
    return [ev.TeamWithdrawn(at=c.at, team_id=c.team_id, reason="withdrawn", by=c.player)]


def _start(state: Tournament, c: cmd.Start) -> list[ev.Event]:
    s = _in_status(state, "registering")
    if c.at < s.starts_at:
        raise TournamentError("too_early", "the tournament does not start yet")
    active = [t for t in state.teams.values() if not t.withdrawn]

    def present(t: Any) -> bool:
        return t.confirmed and (s.check_in_minutes == 0 or len(t.checked_in) == 2)

    field = [t.team_id for t in active if present(t) and not t.waiting]
    promoted = [t.team_id for t in active if present(t) and t.waiting]
    promoted = promoted[:max(0, s.max_teams - len(field))]
    field += promoted
    dropped = tuple(t.team_id for t in active if t.team_id not in field)
    out: list[ev.Event] = [ev.CheckInClosed(at=c.at, dropped=dropped, promoted=tuple(promoted))]
    if len(field) < s.min_teams:
        return [*out, ev.TournamentCancelled(at=c.at, reason="too_few_teams")]
    order = {team_id: i for i, team_id in enumerate(state.teams)}
    by_hand = {team_id: i for i, team_id in enumerate(state.hand_seeds)}
    seeds = tuple(sorted(field, key=lambda t: (by_hand.get(t, len(by_hand)),
                                               -state.teams[t].rating, order[t])))
    out.append(ev.TournamentStarted(at=c.at, seeds=seeds))
    if s.format.kind in formats.ELIMINATION:
        out.append(ev.BracketDrawn(at=c.at, matches=tuple(formats.draw(s.format, len(seeds)))))
    return out


# --- Rounds (Swiss, round robin) -----------------------------------------------------------


def _pair_round(state: Tournament, c: cmd.PairRound) -> list[ev.Event]:
    s = _in_status(state, "running")
    if s.format.kind in formats.ELIMINATION:
        raise TournamentError("not_paired_by_rounds",
                              "elimination matches are paired as their teams become known")
    if state.rounds and not state.rounds[-1].completed:
        raise TournamentError("round_in_progress", "the current round is not over")
    if len(state.rounds) >= formats.total_rounds(s.format, state.entrants):
        raise TournamentError("no_more_rounds", "every round has been played")
    try:
        seed_bytes = bytes.fromhex(c.seed)
    except ValueError:
        seed_bytes = b""
    if len(seed_bytes) < _MIN_SEED_BYTES:
        raise TournamentError("bad_seed", "a round's seed is at least 16 bytes of hex")
    round_no = len(state.rounds) + 1
    withdrawn = {t for t in state.seeds if state.teams[t].withdrawn}
    if s.format.kind == "round_robin":
        groups = formats.groups_for(s.format, len(state.seeds))
        pairs, byes = round_robin.round_pairs(state.seeds, round_no, groups)
    elif (hand := state.hand_pairings.get(round_no)) is not None:
        pairs, byes = list(hand.pairs), [hand.bye] if hand.bye else []
    else:
        drawn = swiss.pair(_swissstandings_of(state, withdrawn), c.seed)
        pairs, byes = drawn.pairs, [drawn.bye] if drawn.bye else []
    pairings = tuple(ev.Pairing(match_id=f"R{round_no}-{i + 1}", round_no=round_no,
                                home=home, away=away) for i, (home, away) in enumerate(pairs))
    duplicate = s.format.deals == "duplicate"
    return [ev.RoundPaired(
        at=c.at, round_no=round_no, pairings=pairings, byes=tuple(byes),
        deal_seed_hash=hashlib.sha256(seed_bytes).hexdigest() if duplicate else "",
        deal_seed=c.seed if duplicate else "")]


def _swissstandings_of(state: Tournament, withdrawn: set[str]) -> list[swiss.SwissTeam]:
    rows = standings_of(state)
    opponents: dict[str, set[str]] = {t: set() for t in state.seeds}
    for m in state.matches.values():
        opponents[m.pairing.home].add(m.pairing.away)
        opponents[m.pairing.away].add(m.pairing.home)
    had_bye = {team for _, team in state.byes()}
    return [swiss.SwissTeam(team_id=r.team_id, points=r.match_points,
                            opponents=frozenset(opponents[r.team_id]),
                            had_bye=r.team_id in had_bye)
            for r in rows if r.team_id not in withdrawn]


def standings_of(state: Tournament) -> list[Row]:
    """The tournament's standings now, with its format's bye value and tie-breaks."""
    s = _settings(state)
    return standings(state.seeds, state.results(), state.byes(),
                     bye_points=2 if s.format.kind == "swiss" else 0, half_byes=state.half_byes,
                     tiebreaks=tiebreak_order(s.format.kind, s.format.tiebreaks))


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
    if s.format.kind in formats.ELIMINATION and outcome == "draw":
        raise TournamentError("draw_not_allowed", "an elimination match has a winner")


def _record(state: Tournament, c: cmd.RecordResult) -> list[ev.Event]:
    s = _in_status(state, "running")
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
    _in_status(state, "running")
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
    _organizer(state, c.by)
    s = _in_status(state, "running")
    m = _match(state, c.match_id)
    _no_draw(s, c.outcome)
    if state.bracket:
        fed = {x.match_id for x in state.bracket
               if c.match_id in (x.home.ref, x.away.ref, x.reset_of)}
        too_late = any(match_id in state.matches for match_id in fed)
    else:
        too_late = m.pairing.round_no < len(state.rounds)
    if too_late:
        raise TournamentError("override_too_late", "a team of this match has been paired "
                              "for its next match")
    return [ev.ResultOverridden(at=c.at, match_id=c.match_id, outcome=c.outcome,
                                scores=c.scores, by=c.by, why=c.why)]


def _set_seeds(state: Tournament, c: cmd.SetSeeds) -> list[ev.Event]:
    _organizer(state, c.by)
    _in_status(state, "registering")
    unknown = [t for t in c.order if t not in state.teams]
    if unknown or len(set(c.order)) != len(c.order):
        raise TournamentError("bad_seeds", "name each registered team at most once"
                              + (f"; unknown: {', '.join(unknown[:5])}" if unknown else ""))
    if c.order == state.hand_seeds:
        return []
    return [ev.SeedsSet(at=c.at, by=c.by, order=c.order)]


def _set_pairings(state: Tournament, c: cmd.SetPairings) -> list[ev.Event]:
    _organizer(state, c.by)
    s = _in_status(state, "running")
    if s.format.kind != "swiss":
        raise TournamentError("not_swiss", "pairings are set by hand for Swiss rounds only")
    if c.round_no != len(state.rounds) + 1 or c.round_no > formats.total_rounds(
            s.format, state.entrants):
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
    _organizer(state, c.by)
    _not_over(state)
    if c.player in state.waived:
        return []
    return [ev.BanWaived(at=c.at, player=c.player, by=c.by)]


def _disqualify(state: Tournament, c: cmd.Disqualify) -> list[ev.Event]:
    _organizer(state, c.by)
    _not_over(state)
    team = _team(state, c.team_id)
    if team.withdrawn:
        return []
    return [ev.TeamWithdrawn(at=c.at, team_id=c.team_id, reason="disqualified", by=c.by,
                             why=c.why)]


_HANDLERS: dict[type, Callable[[Tournament, Any], list[ev.Event]]] = {
    cmd.CreateTournament: _create,
    cmd.ChangeSettings: _change,
    cmd.Cancel: _cancel,
    cmd.RegisterTeam: _register,
    cmd.ConfirmTeam: _confirm,
    cmd.CheckIn: _check_in,
    cmd.WithdrawTeam: _withdraw,
    cmd.Start: _start,
    cmd.PairRound: _pair_round,
    cmd.CallMatch: _call,
    cmd.RecordResult: _record,
    cmd.OverrideResult: _override,
    cmd.Disqualify: _disqualify,
    cmd.WaiveBan: _waive,
    cmd.SetSeeds: _set_seeds,
    cmd.SetPairings: _set_pairings,
    cmd.AddBotTeam: _add_bots,
}
