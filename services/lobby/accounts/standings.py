"""Ratings as players see them: the ratings service's numbers with the lobby's names.

Ratings know players by id only; names live in the lobby's accounts, so each
answer is one request to ``svc.ratings.*`` and one query for the names in it.
"""

from __future__ import annotations

import asyncpg

from schemas import api
from schemas import ratings as rq
from services.lobby.accounts import store
from services.lobby.accounts.names import skeleton
from services.lobby.base.errors import LobbyError
from services.lobby.clients.ratings import RatingsBus


class Standings:
    def __init__(self, pool: asyncpg.Pool, ratings: RatingsBus) -> None:
        self.pool, self.ratings = pool, ratings

    async def _account(self, player_id: str) -> str:
        found = await store.account(self.pool, player_id)
        if found is None:
            raise LobbyError("player_not_found", f"no player {player_id}")
        return found[1]

    async def find(self, name: str) -> api.Named:
        found = await store.registered_account(self.pool, skeleton(name))
        if found is None:
            raise LobbyError("player_not_found", f"no registered player is named {name!r}")
        return api.Named(found[0], found[1])

    async def player(self, player_id: str) -> api.PlayerPage:
        """The name always; the rated record unless the ratings service is away."""
        name = await self._account(player_id)
        try:
            ranked = await self.ratings.player(player_id)
        except LobbyError:
            return api.PlayerPage(player_id=player_id, name=name)
        return api.PlayerPage(player_id=player_id, name=name, ranked=ranked)

    async def leaderboard(self, limit: int, offset: int, around: str | None,
                          provisional: bool) -> api.Leaderboard:
        board = await self.ratings.leaderboard(rq.LeaderboardRequest(
            limit=limit, offset=offset, around=around, provisional=provisional))
        names = await store.names(self.pool, [r.player_id for r in board.rows])
        return api.Leaderboard(offset=board.offset, entries=[api.LeaderboardEntry(
            rank=r.rank, player_id=r.player_id, name=names.get(r.player_id, ""),
            rating=r.rating, games=r.games, wins=r.wins, losses=r.losses, draws=r.draws,
            provisional=r.provisional) for r in board.rows])

    async def history(self, player_id: str, before: int | None, limit: int) -> api.RatingHistory:
        await self._account(player_id)
        page = await self.ratings.history(rq.HistoryRequest(player_id=player_id, before=before,
                                                            limit=limit))
        ids = {p for e in page.entries for p in (e.partner, *e.opponents)}
        names = await store.names(self.pool, sorted(ids))

        def named(p: str) -> api.Named:
            return api.Named(p, names.get(p, ""))

        return api.RatingHistory(next=page.next, entries=[api.RatingChange(
            id=e.id, game_id=e.game_id, rated_at_ms=e.rated_at_ms,
            rating_before=e.rating_before, rating_after=e.rating_after, delta=e.delta, k=e.k,
            result=e.result, partner=named(e.partner),
            opponents=[named(o) for o in e.opponents]) for e in page.entries])
