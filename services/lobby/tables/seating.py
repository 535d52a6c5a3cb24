"""Who sits where is the game's to say, not the lobby's table row.

A game's own events name its players (``GameStarted.players``) and who plays a
seat for now (``SeatTakenByBot``, ``SeatReclaimed``); a gateway folds them in
``following.Hub`` and decides from that state who follows a game as which
seat and who may act for a seat. So a game that no table opened (ranked play,
a tournament, a test's ``CreateGame``) is played the same way, and a changed
table row gives nobody a seat.
"""

from __future__ import annotations

from engine.state import GameState
from services.lobby.base.errors import LobbyError


def seat_of(state: GameState, player_id: str) -> int | None:
    """The seat ``player_id`` holds in the game, if any (a bot id holds none here)."""
    if not player_id or player_id.startswith("bot:"):
        return None
    return next((i for i, p in enumerate(state.players) if p == player_id), None)


def check_acts(state: GameState, seat: int, player_id: str) -> None:
    """``player_id`` may act for ``seat`` now: it is the seat's player and no bot plays
    the seat in its place (after it left, or its grace period ran out)."""
    if state.players[seat] != player_id:
        raise LobbyError("not_your_seat", f"you do not hold seat {seat}")
    if state.bots >> seat & 1:
        raise LobbyError("seat_is_bot", f"a bot plays seat {seat} since you left; "
                                        "subscribe again to take the seat back")
