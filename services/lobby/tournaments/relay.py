"""Tournaments as the lobby offers them: the caller's token becomes the command's author.

The tournament service decides (who organizes, who partners whom, what the
state allows); the lobby adds what only it knows: who is calling, whether an
account may organize (an organizer or an operator: ``organizing.py``) or play in a
team (a registered account, not a guest: ``teams.py``), and the names of the people
in a tournament's view.
"""

from __future__ import annotations

import msgspec

from schemas.errors.codes import TOURNAMENTS_UNAVAILABLE
from schemas.history import TournamentRound
from schemas.matches import parse_lobby_match_id
from schemas.tournaments import api as api
from services.lobby.accounts import store
from services.lobby.base.errors import LobbyError
from services.lobby.clients.broadcasts import Broadcasts
from services.lobby.clients.ratings import RatingsBus
from services.lobby.clients.tournaments import TournamentBus
from services.lobby.matches import store as match_store
from services.lobby.tournaments.organizing import Organizing
from services.lobby.tournaments.teams import Teams


async def rounds_of(bus: TournamentBus,
                    match_ids: list[str]) -> dict[str, TournamentRound]:
    """Lobby match id -> the tournament round it was, asking the tournament service
    once a tournament; one it cannot answer for is named by its id alone, and once it
    did not answer in time it is not asked again for the rest (a list waits for one
    timeout at most)."""
    wanted: dict[str, dict[str, str]] = {}  # tournament -> its match id -> lobby's
    for lobby_id in match_ids:
        found = parse_lobby_match_id(lobby_id)
        if found is not None:
            wanted.setdefault(found[0], {})[found[1]] = lobby_id
    out: dict[str, TournamentRound] = {}
    down = False
    for tid, matches in wanted.items():
        view = None
        if not down:
            try:
                view = await bus.get(tid)
            except LobbyError as exc:  # tournaments_unavailable, or gone
                down = exc.code == TOURNAMENTS_UNAVAILABLE
        if view is None:
            out.update({lobby_id: TournamentRound(tournament_id=tid, name="", round_no=0)
                        for lobby_id in matches.values()})
            continue
        teams = {t.team_id: t.name for t in view.teams}
        for m in view.matches:
            if m.match_id in matches:
                out[matches[m.match_id]] = TournamentRound(
                    tournament_id=tid, name=view.summary.name, round_no=m.round_no,
                    round_name=m.round_name, home=teams.get(m.home, ""),
                    away=teams.get(m.away, ""))
    return out


class Tournaments:
    """Tournaments as the lobby reads them (views with people's names, events,
    standings, brackets, what round a game was), with the organizers' actions
    (``organizing``) and the players' teams (``teams``) beside them."""

    def __init__(self, pool: store.Pool, tournaments: TournamentBus,
                 ratings: RatingsBus, broadcasts: Broadcasts) -> None:
        self.pool, self.bus, self.ratings = pool, tournaments, ratings
        self.broadcasts = broadcasts
        self.organizing = Organizing(pool, tournaments)
        self.teams = Teams(pool, tournaments, ratings, broadcasts)

    async def placed(self, game_id: str) -> tuple[str, TournamentRound | None]:
        """What started a game (``table``, ``queue``, ``tournament``; empty if nothing
        the lobby knows) and, for a tournament's, which round and teams it is."""
        started = await match_store.origin_of(self.pool, game_id)
        if started is None:
            return "", None
        if started["origin"] != "tournament":
            return str(started["origin"]), None
        rounds = await self.rounds_of([started["match_id"]])
        return "tournament", rounds.get(started["match_id"])

    async def rounds_of(self, match_ids: list[str]) -> dict[str, TournamentRound]:
        """Lobby match id -> the tournament round it was (``rounds_of``)."""
        return await rounds_of(self.bus, match_ids)

    async def get(self, tid: str) -> api.TournamentView:
        """The tournament service's view, with the names of the people in it (a bot team's
        players have no account, and no name here)."""
        view = await self.bus.get(tid)
        people = [view.summary.organizer, *(p for t in view.teams for p in t.players)]
        return msgspec.structs.replace(view, names=await store.names(self.pool, people))

    async def events(self, tid: str, after: int, limit: int) -> api.TournamentEvents:
        return await self.bus.events(tid, after, limit)

    async def list(self, status: str | None, limit: int) -> api.TournamentList:
        return await self.bus.list(status, limit)

    async def standings(self, tid: str) -> api.Standings:
        view = await self.bus.get(tid)
        return api.Standings(tournament_id=tid, standings=view.standings)

    async def bracket(self, tid: str) -> api.Bracket:
        view = await self.bus.get(tid)
        rounds: dict[int, list[api.MatchView]] = {}
        for m in view.matches:
            rounds.setdefault(m.round_no, []).append(m)
        return api.Bracket(tournament_id=tid, format=view.summary.format,
                           rounds=[rounds[r] for r in sorted(rounds)])
