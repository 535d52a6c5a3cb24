"""Players' reports of a game for fair play (``POST /v1/games/{game_id}/report``).

Who may report is who could see the game (the route asks the game's summary for the
caller first, with every rule of watching); a report is about ranked play, so only a
rated game's; and each player may report so many games in a window (``limits``,
moving windows in memory per lobby copy, as sign-ins are throttled). The ratings
service, which keeps the review queue, puts the game's four players in it
(docs/fairplay.md).
"""

from __future__ import annotations

from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter

from schemas.api import GameSummary
from schemas.fairplay import Report, ReportTaken
from services.lobby.base.errors import LobbyError
from services.lobby.base.store import Pool
from services.lobby.base.throttle import limit, refuse_past
from services.lobby.clients.ratings import RatingsBus
from services.lobby.matches import store as matchstore
from services.platform import logs

_log = logs.get("lobby")


class Reports:
    def __init__(self, pool: Pool, ratings: RatingsBus, per_player: str) -> None:
        self.pool, self.ratings = pool, ratings
        self.per_player = limit(per_player)
        self._limiter = MovingWindowRateLimiter(MemoryStorage())

    def count(self, player_id: str) -> None:
        """Count one report by ``player_id``, or refuse it (429 ``rate_limited``)."""
        refuse_past(self._limiter, self.per_player, ("report", player_id), "reports")
        self._limiter.hit(self.per_player, "report", player_id)

    async def report(self, player_id: str, game: GameSummary, reason: str) -> ReportTaken:
        """Send the report of a game ``player_id`` could see (its summary) to the queue."""
        match = await matchstore.match_of_game(self.pool, game.game_id)
        if match is None or not match.rated:
            raise LobbyError("game_not_rated", f"game {game.game_id} is not rated")
        players = [s.player_id or "" for s in sorted(game.players, key=lambda s: s.seat)]
        await self.ratings.report(Report(game_id=game.game_id, players=players,
                                         reporter=player_id, reason=reason))
        _log.info("game_reported", game_id=game.game_id, reporter=player_id)
        return ReportTaken(game_id=game.game_id)
