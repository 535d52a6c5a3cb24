"""The ratings service's endpoints on the NATS services API (``svc.ratings.*``).

Handlers take and return the Structs of ``schemas/ratings.py``; decoding, and
turning a bad request into a 400 error reply, happen once in the bus module.
Leaderboard pages and ranks come from the board as last refreshed (at most
``refresh_seconds`` old); ratings, results and history are live.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable
from dataclasses import dataclass

import asyncpg

from schemas import ratings as api
from services.platform.bus import Endpoint
from services.ratings import store
from services.ratings.system import RatingSystem


@dataclass(frozen=True)
class Ratings:
    pool: asyncpg.Pool
    system: RatingSystem  # the formula: initial rating, who is provisional
    active_days: float  # the board lists players with a rated game this recently
    refresh_seconds: float = 60.0  # the board is recomputed this often
    fresh_seconds: float = 2.0  # and this soon after rated games changed ratings
    now: Callable[[], float] = time.time  # seconds since the epoch; tests move it

    def board(self) -> store.Board:
        since = dt.datetime.fromtimestamp(self.now() - self.active_days * 86400, dt.UTC)
        return store.Board(since, self.system.provisional_games)

    async def refresh(self, every: float | None = None) -> int | None:
        """Recompute the board if it is older than ``every`` seconds (the setting by
        default), or behind the ratings and older than ``fresh_seconds``, and no other
        copy is at it."""
        return await store.refresh_board(
            self.pool, self.board(), self.refresh_seconds if every is None else every,
            min(self.fresh_seconds, self.refresh_seconds if every is None else every),
            dt.datetime.fromtimestamp(self.now(), dt.UTC))

    def _standing(self, player: str, row: asyncpg.Record | None,
                  rank: int | None = None) -> api.PlayerRating:
        if row is None:
            initial = self.system.initial
            return api.PlayerRating(player_id=player, rating=initial, peak=initial,
                                    provisional=True)
        last = row["last_game_at"]
        return api.PlayerRating(
            player_id=player, rating=row["rating"], games=row["games"], wins=row["wins"],
            losses=row["losses"], draws=row["draws"], left=row["left"], peak=row["peak"],
            provisional=self.system.provisional(row["games"]),
            last_game_at_ms=None if last is None else int(last.timestamp() * 1000), rank=rank)

    async def ratings(self, req: api.RatingsRequest) -> api.RatingsReply:
        rows = await store.ratings_of(self.pool, req.players)
        return api.RatingsReply([self._standing(p, rows.get(p)) for p in req.players])

    async def player(self, req: api.PlayerRequest) -> api.PlayerRating:
        row = (await store.ratings_of(self.pool, [req.player_id])).get(req.player_id)
        rank = None if row is None else await store.rank(self.pool, req.player_id)
        return self._standing(req.player_id, row, rank)

    async def leaderboard(self, req: api.LeaderboardRequest) -> api.LeaderboardReply:
        offset = req.offset
        if req.around is not None:
            row = (await store.ratings_of(self.pool, [req.around])).get(req.around)
            rating = self.system.initial if row is None else row["rating"]
            place = await store.place(self.pool, req.provisional, req.around, rating)
            offset = max(0, place - req.limit // 2)
        rows = await store.page(self.pool, req.provisional, req.limit, offset)
        return api.LeaderboardReply(offset=offset, rows=[
            api.LeaderboardRow(rank=r["rank_all" if req.provisional else "rank"],
                               player_id=r["player_id"], rating=r["rating"], games=r["games"],
                               wins=r["wins"], losses=r["losses"], draws=r["draws"],
                               provisional=r["provisional"])
            for r in rows])

    async def history(self, req: api.HistoryRequest) -> api.HistoryReply:
        rows = await store.history(self.pool, req.player_id, req.before, req.limit, req.games)
        entries = [api.HistoryEntry(
            id=r["id"], game_id=r["game_stream"], rated_at_ms=int(r["rated_at"].timestamp() * 1000),
            rating_before=r["rating_before"], rating_after=r["rating_after"], delta=r["delta"],
            k=r["k"], result=r["result"], partner=r["partner"], opponents=list(r["opponents"]))
            for r in rows]
        more = len(entries) == req.limit
        return api.HistoryReply(entries=entries, next=entries[-1].id if more and entries else None)

    def endpoints(self) -> list[Endpoint]:
        return [Endpoint(api.RATINGS, api.RatingsRequest, self.ratings),
                Endpoint(api.LEADERBOARD, api.LeaderboardRequest, self.leaderboard),
                Endpoint(api.PLAYER, api.PlayerRequest, self.player),
                Endpoint(api.HISTORY, api.HistoryRequest, self.history)]
