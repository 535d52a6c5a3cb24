"""Tournament decisions before play: registering, confirming and checking in teams, bot
teams, withdrawals, late joins, and the start, which closes the check-in, seeds the field
and lets the format add its draw. Pure, as ``decide`` is; it dispatches here."""

from __future__ import annotations

from typing import Any

from schemas.tournaments import commands as cmd
from schemas.tournaments import events as ev
from services.tournaments import formats
from services.tournaments.errors import TournamentError
from services.tournaments.guards import in_status, not_over, organizer_only, settings_of, team_named
from services.tournaments.state import Tournament


def late_join_open(state: Tournament) -> bool:
    """A running tournament whose format and options let teams join late, before half its
    rounds have started."""
    s = state.settings
    if s is None or state.status != "running" or not s.format.late_join:
        return False
    fmt = formats.of(s.format.kind)
    return fmt.late_join and 2 * len(state.rounds) < fmt.rounds(s.format, state.entrants)


def _registering_or_late(state: Tournament) -> tuple[ev.TournamentSettings, bool]:
    """The settings, and whether this is a late join; else the error saying why not."""
    if late_join_open(state):
        return settings_of(state), True
    return in_status(state, "registering"), False


def name_free(state: Tournament, team_id: str, name: str) -> None:
    """Two teams of one tournament never share a name (in any case, spaces aside): a
    bracket, a standings table and a game's caption name teams by it."""
    key = " ".join(name.casefold().split())
    if any(" ".join(t.name.casefold().split()) == key and t.team_id != team_id
           and not t.withdrawn for t in state.teams.values()):
        raise TournamentError("team_name_taken", f"another team here is called {name}")


def register(state: Tournament, c: cmd.RegisterTeam) -> list[ev.Event]:
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
    name_free(state, c.team_id, c.name)
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


def add_bots(state: Tournament, c: cmd.AddBotTeam) -> list[ev.Event]:
    organizer_only(state, c.by)
    s = in_status(state, "registering")
    if s.rated:
        raise TournamentError("rated_needs_people", "a rated tournament is for people only")
    players = (f"{BOT}{c.level}:{c.team_id}:1", f"{BOT}{c.level}:{c.team_id}:2")
    existing = state.teams.get(c.team_id)
    if existing is not None:
        if existing.players == players:
            return []
        raise TournamentError("team_exists", f"team {c.team_id} already exists")
    name_free(state, c.team_id, c.name)
    placed = sum(1 for t in state.teams.values()
                 if t.confirmed and not t.waiting and not t.withdrawn)
    return [ev.TeamRegistered(at=c.at, team_id=c.team_id, name=c.name, players=players),
            ev.TeamConfirmed(at=c.at, team_id=c.team_id, waiting=placed >= s.max_teams),
            *(ev.TeamCheckedIn(at=c.at, team_id=c.team_id, player=p) for p in players)]


def confirm(state: Tournament, c: cmd.ConfirmTeam) -> list[ev.Event]:
    s, late = _registering_or_late(state)
    team = team_named(state, c.team_id)
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


def check_in(state: Tournament, c: cmd.CheckIn) -> list[ev.Event]:
    s = in_status(state, "registering")
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


def withdraw(state: Tournament, c: cmd.WithdrawTeam) -> list[ev.Event]:
    settings_of(state)
    not_over(state)
    team = team_named(state, c.team_id)
    if c.player not in team.players:
        raise TournamentError("not_in_team", "the player is not in this team")
    if team.withdrawn:
        return []
    return [ev.TeamWithdrawn(at=c.at, team_id=c.team_id, reason="withdrawn", by=c.player)]


def _field(state: Tournament, s: ev.TournamentSettings) -> tuple[list[str], list[str],
                                                                  tuple[str, ...]]:
    """Who plays if the tournament starts now: the placed teams present (confirmed and,
    with a check-in, checked in by both), then present waiting teams up to ``max_teams``
    in registration order; the teams promoted; the teams dropped."""
    active = [t for t in state.teams.values() if not t.withdrawn]

    def present(t: Any) -> bool:
        return t.confirmed and (s.check_in_minutes == 0 or len(t.checked_in) == 2)

    field = [t.team_id for t in active if present(t) and not t.waiting]
    promoted = [t.team_id for t in active if present(t) and t.waiting]
    promoted = promoted[:max(0, s.max_teams - len(field))]
    field += promoted
    return field, promoted, tuple(t.team_id for t in active if t.team_id not in field)


def _begin(state: Tournament, s: ev.TournamentSettings, at: int) -> list[ev.Event]:
    """Close the check-in and start with the field present now; under ``min_teams``,
    cancel."""
    field, promoted, dropped = _field(state, s)
    out: list[ev.Event] = [ev.CheckInClosed(at=at, dropped=dropped, promoted=tuple(promoted))]
    if len(field) < s.min_teams:
        return [*out, ev.TournamentCancelled(at=at, reason="too_few_teams")]
    order = {team_id: i for i, team_id in enumerate(state.teams)}
    by_hand = {team_id: i for i, team_id in enumerate(state.hand_seeds)}
    seeds = tuple(sorted(field, key=lambda t: (by_hand.get(t, len(by_hand)),
                                               -state.teams[t].rating, order[t])))
    out.append(ev.TournamentStarted(at=at, seeds=seeds))
    return out + formats.of(s.format.kind).start(s.format, seeds, at)


def start(state: Tournament, c: cmd.Start) -> list[ev.Event]:
    s = in_status(state, "registering")
    if c.at < s.starts_at:
        raise TournamentError("too_early", "the tournament does not start yet")
    return _begin(state, s, c.at)


def start_now(state: Tournament, c: cmd.StartNow) -> list[ev.Event]:
    """The organizer starts before ``starts_at``, as the start would then; a field under
    ``min_teams`` is refused (the tournament stays open) instead of cancelling."""
    organizer_only(state, c.by)
    s = in_status(state, "registering")
    field, _, _ = _field(state, s)
    if len(field) < s.min_teams:
        raise TournamentError("not_enough_teams", f"{len(field)} of the {s.min_teams} teams "
                              "needed are confirmed" + (" and checked in"
                                                        if s.check_in_minutes else ""))
    return _begin(state, s, c.at)
