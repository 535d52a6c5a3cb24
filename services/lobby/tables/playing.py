"""One running game at a time for a person in a seat (docs/protocol.md, "One game at a
time"): who plays now, as ``running_seats`` says, checked against the game's own store.

The store's key keeps the rule whatever races; this is the lookup before it. The games
projection runs behind the events a socket shows, so a running game is first looked up
in its worker's store: a person who saw ``GameEnded`` is free at once, as they saw it.
"""

from __future__ import annotations

from collections.abc import Iterable

from services.lobby.base.errors import LobbyError
from services.lobby.clients.gameworkers import GameClient, GameUnavailable
from services.lobby.tables import store

IN_GAME = "in_game"


def in_game(message: str = "finish your running game first") -> LobbyError:
    """The refusal of a seat, a start or a confirmation while someone plays elsewhere."""
    return LobbyError(IN_GAME, f"{message}: a person plays one game at a time")


class Playing:
    def __init__(self, pool: store.Pool, games: GameClient) -> None:
        self.pool, self.games = pool, games

    async def free(self, players: Iterable[str]) -> None:
        """Forget the running games of ``players`` that have ended in their own store; a
        game no worker answers for stands as the store has it."""
        for player in players:
            for game_id, _, _ in await store.running_games_of(self.pool, player):
                try:
                    end = await self.games.ending(game_id)
                except GameUnavailable:
                    continue
                if end is not None:
                    await store.unseat(self.pool, game_id, player)

    async def refuse(self, player: str, here: str | None = None) -> None:
        """``in_game`` when ``player`` plays a game that has not ended, at any table but
        ``here`` (where they may come back to their seat)."""
        await self.free([player])
        for _, table_id, _ in await store.running_games_of(self.pool, player):
            if here is None or table_id != here:
                raise in_game()


__all__ = ["IN_GAME", "Playing", "in_game"]
