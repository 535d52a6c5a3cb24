"""The lobby's routes for tournaments (``/v1/tournaments``): decode, call one
``Tournaments`` method, encode.

Reading is for anyone signed in; creating needs an organizer (or operator)
account, and so does every organizer's action on a tournament (checked on each
request: a revoked organizer gets 403 ``organizers_only`` on their own
tournaments); what the organizer, a team's players or its partner may do is
decided by the tournament service, whose refusals arrive as typed errors (403
``not_organizer``, 409 ``registration_closed`` ...; docs/tournaments.md).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from litestar import Controller, delete, get, patch, post
from litestar.params import Parameter

from schemas.tournaments import api as api
from services.lobby.accounts.auth import Claims
from services.lobby.http.apidocs import BEARER, BODY, SIGNED_IN, STORE, answers
from services.lobby.http.deps import signed_in
from services.lobby.http.params import MatchId, TeamId, TournamentId, count
from services.lobby.tournaments.relay import Tournaments

TAGS = ["tournaments"]

TID = "5b0e7c2a-3f1d-4c8e-9a61-2d7f0e4b9c13"
CHANGED = {"tournament_id": TID, "version": 2, "events": ["TeamRegistered"],
           "team_id": "a41c09e7d2b84f61"}
SUMMARY = {"tournament_id": TID, "name": "Friday Night Spades", "status": "registering",
           "format": "single_elimination", "organizer": "p-7f3a",
           "starts_at": 1798761600000, "champion": None, "champion_name": "",
           "check_in_opens_at": 1798759800000, "check_in_closes_at": 1798761600000}
MATCH = {"match_id": "W1-1", "round_no": 1, "home": "a41c09e7d2b84f61",
         "away": "0c7d2e5f9b134a80", "outcome": None, "reason": "played", "scores": [0, 0],
         "stage": "bracket", "round_name": "Semi-finals",
         "game_id": "3f9a0c2e7b1d4e5f8a6c9b0d2e4f6a81"}
STANDING = {"team_id": "a41c09e7d2b84f61", "rank": 1, "match_points": 1.0, "buchholz": 0.0,
            "head_to_head": 0.0, "differential": 120, "bags": 3, "points": 520, "seed": 1,
            "reached": 2, "reached_round": "Final", "eliminated": False}
VIEW = {"summary": SUMMARY, "settings": {"name": "Friday Night Spades"}, "version": 2,
        "teams": [{"team_id": "a41c09e7d2b84f61", "name": "Aces", "players": ["p-7f3a", "p-11b0"],
                   "confirmed": False, "waiting": False, "checked_in": [], "withdrawn": "",
                   "seed": None}], "matches": [MATCH], "standings": [STANDING],
        "rounds": [{"stage": "bracket", "round_no": 1, "name": "Semi-finals"},
                   {"stage": "bracket", "round_no": 2, "name": "Final"}],
        "standings_columns": ["reached", "eliminated", "match_points", "differential",
                              "seed"]}
# Every call reaches the tournament service, which may be away or not know the id.
READ = (*SIGNED_IN, "bad_request", "bad_tournament_id", "no_tournament",
        "tournaments_unavailable", *STORE)
# A write also meets a tournament whose state refuses it.
WRITE = (*READ, "tournament_over", "already_started", "not_running", "registration_closed")
# An organizer's action on a tournament: another's (the service refuses it), or one's own
# once the role was revoked (the lobby refuses it, the role checked on every request).
ORGANIZING = ("not_organizer", "organizers_only")
# The settings' own checks, on create and on change.
SETTINGS = ("bad_rules", "max_below_min", "bad_window", "check_in_outside_window",
            "draw_in_elimination", "duplicate_needs_rounds", "too_many_rounds",
            "late_join_needs_swiss", "too_many_groups", "bad_tiebreaks",
            "rated_needs_ranked_rules", "rated_needs_people")


def written(event: str, *codes: str, status: int = 200) -> dict[int, Any]:
    """The answers of a write that adds ``event``: the codes every write may meet, and
    the write's own."""
    return answers(status, api.TournamentChanged, {**CHANGED, "events": [event],
                                                   "team_id": None}, *WRITE, *codes)


class TournamentController(Controller):
    """Creating a tournament and the organizer's actions on it."""

    @post("/v1/tournaments", status_code=201, summary="Organizer: create a tournament",
          tags=TAGS, security=BEARER,
          responses=written("TournamentCreated", *BODY, "organizers_only", "tournament_exists",
                            *SETTINGS, status=201))
    async def create(self, me: Claims, tournaments: Tournaments,
                     data: api.TournamentBody) -> api.TournamentChanged:
        """Body: the settings (docs/tournaments.md); `rules` a preset name or
        `{"preset": NAME, **options}` as for a private table (400 `bad_rules`). 403
        `organizers_only` unless the account is an organizer or an operator; 400
        `max_below_min`, `bad_window`, `check_in_outside_window`, `draw_in_elimination`
        ... for settings that cannot run."""
        return await tournaments.organizing.create(me, data)

    @patch("/v1/tournaments/{tournament_id:str}", summary="Organizer: new settings, until "
           "the start", tags=TAGS, security=BEARER,
           responses=written("SettingsChanged", *BODY, *ORGANIZING, *SETTINGS))
    async def change(self, me: Claims, tournaments: Tournaments, tournament_id: TournamentId,
                     data: api.TournamentBody) -> api.TournamentChanged:
        """Body: the whole new settings. 403 `not_organizer`; 409 `already_started`."""
        return await tournaments.organizing.change(me, tournament_id, data)

    @post("/v1/tournaments/{tournament_id:str}/cancel", status_code=200,
          summary="Organizer: cancel the tournament", tags=TAGS, security=BEARER,
          responses=written("TournamentCancelled", *ORGANIZING))
    async def cancel(self, me: Claims, tournaments: Tournaments,
                     tournament_id: TournamentId) -> api.TournamentChanged:
        """403 `not_organizer`; 409 `tournament_over`."""
        return await tournaments.organizing.cancel(me, tournament_id)

    @post("/v1/tournaments/{tournament_id:str}/start", status_code=200,
          summary="Organizer: start now, before the start time", tags=TAGS, security=BEARER,
          responses=written("TournamentStarted", *ORGANIZING,
                            "not_enough_teams"))
    async def start(self, me: Claims, tournaments: Tournaments,
                    tournament_id: TournamentId) -> api.TournamentChanged:
        """The start the timer would make, now, with the teams present now (with a
        check-in, those both of whose players checked in). 409 `not_enough_teams` leaves
        the tournament open (the timed start would cancel it); `already_started`,
        `tournament_over`."""
        return await tournaments.organizing.start_now(me, tournament_id)

    @post("/v1/tournaments/{tournament_id:str}/matches/{match_id:str}/override",
          status_code=200, summary="Organizer: override a match's result", tags=TAGS,
          security=BEARER, responses=written("ResultOverridden", *BODY, *ORGANIZING, "no_match",
                                                    "draw_not_allowed", "override_too_late"))
    async def override(self, me: Claims, tournaments: Tournaments, tournament_id: TournamentId,
                       match_id: MatchId, data: api.OverrideBody) -> api.TournamentChanged:
        """Who and why are kept in the record. 409 `override_too_late` once a team of the
        match is paired for its next one."""
        return await tournaments.organizing.override(me, tournament_id, match_id, data)

    @post("/v1/tournaments/{tournament_id:str}/teams/{team_id:str}/disqualify",
          status_code=200, summary="Organizer: disqualify a team", tags=TAGS,
          security=BEARER, responses=written("TeamWithdrawn", *BODY, *ORGANIZING, "no_team"))
    async def disqualify(self, me: Claims, tournaments: Tournaments, tournament_id: TournamentId,
                         team_id: TeamId, data: api.DisqualifyBody) -> api.TournamentChanged:
        """Its remaining matches are forfeited."""
        return await tournaments.organizing.disqualify(me, tournament_id, team_id, data)

    @post("/v1/tournaments/{tournament_id:str}/bots", status_code=201,
          summary="Organizer: enter a team of two bots", tags=TAGS, security=BEARER,
          responses=written("TeamRegistered", *BODY, *ORGANIZING, "rated_needs_people",
                            "team_exists", "team_name_taken", "tournament_full", status=201))
    async def add_bots(self, me: Claims, tournaments: Tournaments, tournament_id: TournamentId,
                       data: api.BotTeamBody) -> api.TournamentChanged:
        """Registered, confirmed and checked in at once; unrated tournaments only (400
        `rated_needs_people`). Bots are always ready."""
        return await tournaments.organizing.add_bots(me, tournament_id, data)

    @post("/v1/tournaments/{tournament_id:str}/seeds", status_code=200,
          summary="Organizer: seed teams by hand, before the start", tags=TAGS,
          security=BEARER, responses=written("SeedsSet", *BODY, *ORGANIZING, "bad_seeds"))
    async def seed(self, me: Claims, tournaments: Tournaments, tournament_id: TournamentId,
                   data: api.SeedsBody) -> api.TournamentChanged:
        """The teams named come first, in this order; the others follow by the mean
        rating of their players. 400 `bad_seeds`; 409 `already_started`."""
        return await tournaments.organizing.seed(me, tournament_id, data)

    @post("/v1/tournaments/{tournament_id:str}/rounds/{round_no:int}/pairings",
          status_code=200, summary="Organizer: the next Swiss round's pairings, by hand",
          tags=TAGS, security=BEARER,
          responses=written("PairingsSet", *BODY, *ORGANIZING, "not_swiss", "bad_round",
                            "bad_pairings"))
    async def set_pairings(self, me: Claims, tournaments: Tournaments, tournament_id: TournamentId,
                           round_no: Annotated[int, Parameter(ge=1, le=64)],
                           data: api.PairingsBody) -> api.TournamentChanged:
        """Used instead of the computed pairings when the round is paired. 400
        `bad_pairings` (every team still in once, a bye only when odd), `bad_round` (only
        the next round), `not_swiss`."""
        return await tournaments.organizing.set_pairings(me, tournament_id, round_no, data)

    @post("/v1/tournaments/{tournament_id:str}/waive-ban", status_code=200,
          summary="Organizer: let a player with a no-show ban register here", tags=TAGS,
          security=BEARER, responses=written("BanWaived", *BODY, *ORGANIZING))
    async def waive_ban(self, me: Claims, tournaments: Tournaments, tournament_id: TournamentId,
                        data: api.WaiveBanBody) -> api.TournamentChanged:
        """A player who stayed away from a tournament match may not register for 24 h,
        doubling with each no-show up to 30 days (403 `no_show_ban`), except where the
        organizer waived it."""
        return await tournaments.organizing.waive_ban(me, tournament_id, data)


class TeamController(Controller):
    """A team's life in a tournament: register, confirm, withdraw, check in."""

    @post("/v1/tournaments/{tournament_id:str}/teams", status_code=201,
          summary="Register a team with a partner (by name or id), who confirms it", tags=TAGS,
          security=BEARER, responses=answers(201, api.TournamentChanged, CHANGED, *BODY,
                                             *WRITE, "registered_only", "self_partner",
                             "player_not_found", "partner_is_guest", "ratings_unavailable",
                             "team_exists", "team_name_taken", "already_registered",
                             "no_show_ban"))
    async def register(self, me: Claims, tournaments: Tournaments, tournament_id: TournamentId,
                       data: api.RegisterTeamBody) -> api.TournamentChanged:
        """`partner_name` as a person types it (any case), or `partner` (an id): one of
        the two (400 `bad_request`); 404 `player_not_found`. Both players are registered
        accounts (403 `registered_only` for a guest, 400 `partner_is_guest`); 400
        `self_partner`; 409 `registration_closed`, `already_registered`. The partner gets
        a `tournament_invite` note. The team is seeded by the mean of the two ratings."""
        return await tournaments.teams.register(me, tournament_id, data)

    @post("/v1/tournaments/{tournament_id:str}/teams/{team_id:str}/confirm", status_code=200,
          summary="Partner: confirm the team", tags=TAGS, security=BEARER,
          responses=written("TeamConfirmed", "no_team", "not_partner", "tournament_full"))
    async def confirm(self, me: Claims, tournaments: Tournaments, tournament_id: TournamentId,
                      team_id: TeamId) -> api.TournamentChanged:
        """403 `not_partner` for anyone but the invited partner. Past `max_teams` the team
        is on the waiting list (`waiting`)."""
        return await tournaments.teams.confirm(me, tournament_id, team_id)

    @delete("/v1/tournaments/{tournament_id:str}/teams/{team_id:str}", status_code=200,
            summary="A team's player: withdraw the team", tags=TAGS, security=BEARER,
            responses=written("TeamWithdrawn", "no_team", "not_in_team"))
    async def withdraw(self, me: Claims, tournaments: Tournaments, tournament_id: TournamentId,
                       team_id: TeamId) -> api.TournamentChanged:
        """403 `not_in_team`. Once running, the team's remaining matches are forfeited."""
        return await tournaments.teams.withdraw(me, tournament_id, team_id)

    @post("/v1/tournaments/{tournament_id:str}/check-in", status_code=200,
          summary="Check in for one's team (both partners do)", tags=TAGS, security=BEARER,
          responses=written("TeamCheckedIn", "check_in_closed", "not_in_team",
                                             "not_confirmed"))
    async def check_in(self, me: Claims, tournaments: Tournaments,
                       tournament_id: TournamentId) -> api.TournamentChanged:
        """409 `check_in_closed` outside the `check_in_minutes` before the start,
        `not_confirmed`; 403 `not_in_team`."""
        return await tournaments.teams.check_in(me, tournament_id)


class TournamentReadController(Controller):
    """What anyone signed in (the guard) may read of tournaments."""

    guards = [signed_in]

    @get("/v1/tournaments", summary="Tournaments by start time, of one status or all",
         tags=TAGS, security=BEARER,
         responses=answers(200, api.TournamentList, {"tournaments": [SUMMARY]},
                           *SIGNED_IN, "bad_request", "tournaments_unavailable"))
    async def list_(self, tournaments: Tournaments,
                    status: Literal["registering", "running", "finished", "cancelled"]
                    | None = None,
                    limit: Annotated[int, Parameter(ge=1, le=500)] = 100) -> api.TournamentList:
        """Soonest start first; `status` one of registering, running, finished, cancelled."""
        return await tournaments.list(status, limit)

    @get("/v1/tournaments/{tournament_id:str}", summary="A tournament: settings, teams, "
         "matches, standings", tags=TAGS, security=BEARER,
         responses=answers(200, api.TournamentView, VIEW,
                           *READ))
    async def show(self, tournaments: Tournaments,
                   tournament_id: TournamentId) -> api.TournamentView:
        """404 `no_tournament`. The same, kept current, over /v1/ws after
        `watch_tournament`."""
        return await tournaments.get(tournament_id)

    @get("/v1/tournaments/{tournament_id:str}/events", summary="The tournament's record: "
         "its events in order", tags=TAGS, security=BEARER,
         responses=answers(200, api.TournamentEvents, {
             "tournament_id": TID, "version": 2, "events": [{"version": 2, "event": {
                 "type": "TeamRegistered", "at": 1798700000000, "team_id": "a41c09e7d2b84f61",
                 "name": "Aces", "players": ["p-7f3a", "p-11b0"], "rating": 1540.0}}]},
                             *READ))
    async def events(self, tournaments: Tournaments, tournament_id: TournamentId,
                     after: Annotated[int, count("the last version held")] = 0,
                     limit: Annotated[int, Parameter(ge=1, le=1000)] = 500,
                     ) -> api.TournamentEvents:
        """Every event of `schemas/tournaments/events.py` after `after`, with its version:
        registrations, pairings, results with who overrode them and why. A round's deal
        seed shows once the round is over (`RoundCompleted`)."""
        return await tournaments.events(tournament_id, after, limit)

    @get("/v1/tournaments/{tournament_id:str}/standings", summary="Standings with their "
         "tie-breaks", tags=TAGS, security=BEARER,
         responses=answers(200, api.Standings, {"tournament_id": TID, "standings": [STANDING]},
                           *READ))
    async def standings(self, tournaments: Tournaments,
                        tournament_id: TournamentId) -> api.Standings:
        """A total order: match points, then the format's tie-breaks (or the organizer's
        order), then the seed. Match points as numbers: 1.5 is one and a half."""
        return await tournaments.standings(tournament_id)

    @get("/v1/tournaments/{tournament_id:str}/bracket", summary="Matches paired so far, "
         "by round", tags=TAGS, security=BEARER,
         responses=answers(200, api.Bracket, {"tournament_id": TID,
                                              "format": "single_elimination",
                                              "rounds": [[MATCH]]},
                             *READ))
    async def bracket(self, tournaments: Tournaments,
                      tournament_id: TournamentId) -> api.Bracket:
        """Elimination matches appear as their two teams become known; Swiss and round-robin
        rounds as they are paired."""
        return await tournaments.bracket(tournament_id)



__all__ = ["TeamController", "TournamentController", "TournamentReadController"]
