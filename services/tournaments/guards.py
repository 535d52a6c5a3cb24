"""The checks every tournament decision starts with: that the tournament exists, who may
act, and that it is in the state the command needs. Each raises the ``TournamentError``
saying why not, before anything is decided."""

from __future__ import annotations

from schemas.tournaments import events as ev
from services.tournaments import formats
from services.tournaments.errors import TournamentError
from services.tournaments.formats import Format
from services.tournaments.state import Status, Team, Tournament


def settings_of(state: Tournament) -> ev.TournamentSettings:
    if state.settings is None:
        raise TournamentError("no_tournament", "no tournament has been created here")
    return state.settings


def format_of(state: Tournament) -> Format:
    """The tournament's format; ``no_tournament`` before it is created."""
    return formats.of(settings_of(state).format.kind)


def organizer_only(state: Tournament, by: str) -> ev.TournamentSettings:
    settings = settings_of(state)
    if by != state.organizer:
        raise TournamentError("not_organizer", "only the organizer may do this")
    return settings


def not_over(state: Tournament) -> None:
    if state.status in ("finished", "cancelled"):
        raise TournamentError("tournament_over", f"the tournament is {state.status}")


_NOT_IN = {"registering": ("already_started", "the tournament has started"),
           "running": ("not_running", "the tournament has not started")}


def in_status(state: Tournament, status: Status) -> ev.TournamentSettings:
    """The settings, if the tournament is in ``status``; else the error saying why not."""
    settings = settings_of(state)
    not_over(state)
    if state.status != status:
        raise TournamentError(*_NOT_IN[status])
    return settings


def team_named(state: Tournament, team_id: str) -> Team:
    team = state.teams.get(team_id)
    if team is None:
        raise TournamentError("no_team", f"no team {team_id}")
    return team
