"""The games being played now that anyone may watch, best-rated first: public tables'
games and ranked and tournament matches (never a private table's). A game's rating
is the mean of its registered players' ratings (bots and guests have none); games
with none come last. The ratings service is asked once for the whole list; when it
does not answer, the list still comes, newest first, with ``ratings_complete`` false.
"""

from __future__ import annotations

from schemas.api import LiveGame, LiveGames, LivePlayer
from services.lobby.base.errors import LobbyError
from services.lobby.base.store import Pool
from services.lobby.clients.ratings import RatingsBus
from services.lobby.tables import store

CANDIDATES = 500  # the newest games playing that the list is chosen from


class Live:
    def __init__(self, pool: Pool, ratings: RatingsBus) -> None:
        self.pool, self.ratings = pool, ratings

    async def games(self, limit: int) -> LiveGames:
        rows = await store.playing_watchable(self.pool, CANDIDATES)
        people = sorted({s.player_id for t, _, _, _ in rows for s in t.seats
                         if s.player_id and not s.guest and not s.bot})
        rated: dict[str, int] = {}
        complete = True
        if people:
            try:
                rated = {r.player_id: r.rating for r in await self.ratings.ratings(people)}
            except LobbyError:
                complete = False
        games = [_game(t, origin, is_rated, started, rated)
                 for t, origin, is_rated, started in rows]
        games.sort(key=lambda g: (g.rating is None, -(g.rating or 0), -g.started_at))
        return LiveGames(games=games[:limit], ratings_complete=complete)


def _game(t: store.TableRow, origin: str, rated: bool, started: int,
          ratings: dict[str, int]) -> LiveGame:
    players = [LivePlayer(seat=i, player_id=s.player_id, name=s.name, bot=s.bot,  # type: ignore[arg-type]
                          guest=s.guest, rating=ratings.get(s.player_id or ""))
               for i, s in enumerate(t.seats)]
    known = [p.rating for p in players if p.rating is not None]
    return LiveGame(game_id=t.game_id or "", table_id=t.table_id, origin=origin,
                    rated=rated, players=players, started_at=started,
                    rating=round(sum(known) / len(known)) if known else None,
                    delayed=t.private)
