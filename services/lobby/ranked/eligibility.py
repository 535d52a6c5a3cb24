"""Who may queue now: registered, with enough finished games, not cooling down, not in
a running game (as the game's own store says, not only the projection); and a partner
who may queue with them."""

from __future__ import annotations

import datetime as dt
from collections.abc import Awaitable, Callable
from typing import Any

from services.lobby.accounts import store as accountstore
from services.lobby.base import store as basestore
from services.lobby.base.clock import now_ms
from services.lobby.base.errors import LobbyError
from services.lobby.base.settings import LobbySettings
from services.lobby.clients.gameworkers import GameClient, GameUnavailable
from services.lobby.clients.ratings import RatingsBus
from services.lobby.ranked import store as qs
from services.lobby.tables import store as tablestore
from services.lobby.tables.playing import in_game
from services.platform import logs

_log = logs.get("queue")
FinishedGames = Callable[[str], Awaitable[int]]
"""How many games a player sat in to the end: the games room's count (above this
room on the ladder), handed down by the service."""


class Eligibility:
    def __init__(self, pool: basestore.Pool, games: GameClient, settings: LobbySettings,
                 ratings: RatingsBus, finished_games: FinishedGames) -> None:
        self.pool, self.games, self.settings, self.ratings = pool, games, settings, ratings
        self.finished_games = finished_games

    async def check(self, player: str) -> None:
        """Refuse a player who may not queue now: too few games, cooling down, barred by
        fair play (docs/fairplay.md), playing. A partner named is refused for any of
        these as ``partner_unavailable`` (``partner_free``): whose bar it is stays theirs."""
        short = await self.games_needed(player)
        if short:
            raise LobbyError("more_games_needed", f"finish {short} more "
                             f"game{'s' if short > 1 else ''} to play ranked "
                             "(GET /v1/queue counts them)")
        for bar in await self.ratings.barred([player]):  # before a cooldown: it is longer
            raise LobbyError("ranked_barred", "barred from ranked play until "
                             f"{dt.datetime.fromtimestamp(bar.until_ms / 1000, dt.UTC):%Y-%m-%d}"
                             " after a fair-play review", until=bar.until_ms)
        until = await qs.cooldown_until(self.pool, player)
        if until:
            raise LobbyError("queue_cooldown", "you may queue again after a cooldown",
                             until=until)
        for game_id, _, _ in await tablestore.running_games_of(self.pool, player):
            if not await self._over(game_id, player):
                raise in_game("finish your running game before queueing")

    async def games_needed(self, player: str) -> int:
        """Finished games the player still needs before the queue takes them (0: none).
        The default asks for none: a newcomer plays rated at once, provisionally
        (docs/ratings.md)."""
        need = self.settings.ranked_min_games
        return max(0, need - await self.finished_games(player)) if need else 0

    async def blocker(self, player: str, guest: bool, cooldown_until: int) -> dict[str, Any]:
        """What keeps a player who holds no ticket out of the queue now, if anything:
        the code ``queue_join`` would answer (a guest's, as the join reads it from the
        token), the games still needed, and when a cooldown or a fair-play bar ends.
        A ratings service that does not answer names no bar here (the join, which asks
        it for the player's rating too, then says ``ratings_unavailable``)."""
        if guest:
            return {"blocked_by": "registered_only"}
        needed = await self.games_needed(player)
        if needed:
            return {"blocked_by": "more_games_needed", "games_needed": needed}
        try:
            bars = await self.ratings.barred([player])
        except LobbyError as exc:
            _log.warning("queue_bar_unknown", player_id=player, code=exc.code)
            bars = []
        if bars:  # named before a cooldown, as the join does: a bar is the longer
            return {"blocked_by": "ranked_barred", "until": bars[0].until_ms}
        return {"blocked_by": "queue_cooldown", "until": cooldown_until} if cooldown_until \
            else {}

    async def _over(self, game_id: str, player: str) -> bool:
        """Whether a game the games projection still counts as running has ended in its
        own store. The projection's consumer runs behind the events a socket shows, so a
        player who saw ``GameEnded`` is out of the game at once, as they saw it. A rated
        game this player left cools them down as the projection will
        (``ranked.store.leavers``)."""
        try:
            end = await self.games.ending(game_id)
        except GameUnavailable:
            return False  # the projection's word stands
        if end is None:
            return False
        env, ended = end
        if ended.rated and player in (ended.players[s] for s in qs.left_seats(ended)):
            until = env.occurred_at_ms + int(self.settings.queue_leaver_seconds * 1000)
            if until > now_ms():
                raise LobbyError("queue_cooldown", "you may queue again after a cooldown",
                                 until=until)
        return True

    async def partner_free(self, player: str, partner: str) -> None:
        unavailable = LobbyError("partner_unavailable",
                                 "that player cannot queue with you now")
        if partner == player:
            raise LobbyError("partner_unavailable", "you cannot partner yourself")
        known = await accountstore.people(self.pool, [partner])
        if partner not in known or not known[partner][1]:
            raise unavailable
        try:
            await self.check(partner)
        except LobbyError:
            raise unavailable from None
        theirs = await qs.ticket_of(self.pool, partner)
        if theirs is not None and not (theirs.state == "inviting" and theirs.partner == player):
            raise unavailable
