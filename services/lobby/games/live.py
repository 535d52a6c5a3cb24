"""The games being played now that anyone may watch, best-rated first: public tables'
games and ranked and tournament matches (never a private table's). A game's rating
is the mean of its registered players' ratings (bots and guests have none); games
with none come last. The ratings service is asked once for the whole list; when it
does not answer, the list still comes, newest first, with ``ratings_complete`` false.
A player of a duplicate tournament is not offered the other tables of a round they
still play (``tournaments.unseen``); when the tournament service does not answer, the
list leaves out every tournament game for them rather than guess. A tournament's game
carries its tournament, round and teams' names (``tournament``), so a list of bots' games
still says which match each one is; the tournament service is asked once a tournament.
"""

from __future__ import annotations

from schemas.api import LiveGame, LiveGames, LivePlayer
from schemas.history import TournamentRound
from services.lobby.accounts.auth import Claims
from services.lobby.base.errors import LobbyError
from services.lobby.base.store import Pool
from services.lobby.clients.ratings import RatingsBus
from services.lobby.matches import store as matchstore
from services.lobby.tables import store
from services.lobby.tournaments.relay import Tournaments
from services.lobby.tournaments.unseen import Unseen

CANDIDATES = 500  # the newest games playing that the list is chosen from


class Live:
    def __init__(self, pool: Pool, ratings: RatingsBus, unseen: Unseen,
                 tournaments: Tournaments) -> None:
        self.pool, self.ratings, self.unseen = pool, ratings, unseen
        self.tournaments = tournaments

    async def games(self, limit: int, me: Claims) -> LiveGames:
        rows = await self._watchable(me)
        people = sorted({s.player_id for t, _, _, _ in rows for s in t.seats
                         if s.player_id and not s.guest and not s.bot})
        rated: dict[str, int] = {}
        complete = True
        if people:
            try:
                rated = {r.player_id: r.rating for r in await self.ratings.ratings(people)}
            except LobbyError:
                complete = False
        rounds = await self._rounds([t.game_id or "" for t, origin, _, _ in rows
                                     if origin == "tournament"])
        games = [_game(t, origin, is_rated, started, rated, rounds.get(t.game_id or ""))
                 for t, origin, is_rated, started in rows]
        games.sort(key=lambda g: (g.rating is None, -(g.rating or 0), -g.started_at))
        return LiveGames(games=games[:limit], ratings_complete=complete)

    async def _rounds(self, game_ids: list[str]) -> dict[str, TournamentRound]:
        """Game id -> the tournament round and teams a tournament's game plays."""
        if not game_ids:
            return {}
        matches = await matchstore.tournament_matches(self.pool, game_ids)
        rounds = await self.tournaments.rounds_of(list(matches.values()))
        return {g: rounds[m] for g, m in matches.items() if m in rounds}

    async def _watchable(self, me: Claims) -> list[tuple[store.TableRow, str, bool, int]]:
        """The candidates, less the games ``me`` may not see."""
        rows = await candidates(self.pool, CANDIDATES)
        if not any(origin == "tournament" for _, origin, _, _ in rows):
            return rows
        try:
            hidden = await self.unseen.games(me)
        except LobbyError:
            return [row for row in rows if row[1] != "tournament"]
        return [row for row in rows if row[0].game_id not in hidden]


async def candidates(pool: Pool, limit: int) -> list[tuple[store.TableRow, str, bool, int]]:
    """The newest ``limit`` games anyone may watch (``playing_watchable``), each with
    its match's origin, whether it is rated and when it started (ms), newest first. A
    game no match opened is a table's, unrated, started when its table was seated."""
    playing = await store.playing_watchable(pool, limit)
    starts = await matchstore.starts_of(pool, [t.game_id for t, _ in playing if t.game_id])
    rows = []
    for t, since in playing:
        origin, rated, started = starts.get(t.game_id or "", ("table", False, since))
        rows.append((t, origin, rated, started))
    rows.sort(key=lambda row: -row[3])
    return rows


def _game(t: store.TableRow, origin: str, rated: bool, started: int,
          ratings: dict[str, int], tournament: TournamentRound | None) -> LiveGame:
    players = [LivePlayer(seat=i, player_id=s.player_id, name=s.name, bot=s.bot,  # type: ignore[arg-type]
                          guest=s.guest, rating=ratings.get(s.player_id or ""))
               for i, s in enumerate(t.seats)]
    known = [p.rating for p in players if p.rating is not None]
    return LiveGame(game_id=t.game_id or "", table_id=t.table_id, origin=origin,
                    rated=rated, players=players, started_at=started,
                    rating=round(sum(known) / len(known)) if known else None,
                    delayed=t.private, tournament=tournament)
