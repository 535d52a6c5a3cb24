"""The cooldown a rated game's leavers get, recorded from the game's own end.

The games projection's ``GameEnded`` consumer calls ``game_ended`` inside its
transaction (idempotent by stream and version, like the rest of that consumer): the
seats a bot played at the end and the seat whose leaving (or clock) forfeited may not
queue for ``seconds``; their partners may.
"""

from __future__ import annotations

from typing import Any

from schemas.events import GameEnded
from services.lobby.ranked import store


async def game_ended(conn: Any, game_id: str, ended: GameEnded, seconds: float) -> None:
    left = store.left_seats(ended)
    if ended.rated and left:
        await store.leavers(conn, game_id, left, ended.players, seconds)
