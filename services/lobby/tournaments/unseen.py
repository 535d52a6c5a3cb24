"""What a player of a duplicate tournament may not look at yet.

Every table of a duplicate round plays the same deals, seat by seat, so a player
who watched another table of their round, or read its game, would know their own
cards and how they fall before playing them. The tournament service knows whose
match of a round is still to finish (``svc.tournaments.withheld``); the lobby,
which gates watching, refuses those games to that player (403
``deal_not_finished``) whatever their role, and leaves them out of the player's list
of games being played. docs/tournaments.md, "Duplicate deals", states the rule.
"""

from __future__ import annotations

from services.lobby.accounts.auth import Claims
from services.lobby.base.errors import LobbyError
from services.lobby.base.store import Pool
from services.lobby.clients.tournaments import TournamentBus
from services.lobby.matches import store as match_store


class Unseen:
    def __init__(self, pool: Pool, bus: TournamentBus) -> None:
        self.pool, self.bus = pool, bus

    async def games(self, me: Claims) -> set[str]:
        """The games ``me`` may not see now (a guest plays in no tournament)."""
        return set() if me.guest else set(await self.bus.withheld(me.player_id))

    async def check(self, me: Claims, game_id: str) -> None:
        """Refuse ``me`` a game of a duplicate round they have not finished at their own
        table; a game of no tournament is not asked about."""
        if me.guest:
            return
        match = await match_store.match_of_game(self.pool, game_id)
        if match is None or match.origin != "tournament":
            return
        if game_id in await self.games(me):
            raise LobbyError("deal_not_finished",
                             "this game plays the deals of your own match, which you have "
                             "not finished yet; watch it once your match is over")
