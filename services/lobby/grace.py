"""A seated player whose last socket on a game went away keeps the seat for a while.

When a seat's last follower leaves (socket closed, unsubscribed), a grace
period starts; if nobody follows that seat again on any gateway before it
ends, the game is told the seat left (``LeaveSeat``, and the rules decide: a
bot plays on, or the pair forfeits). A gateway where the player comes back
says so on ``lobby.presence.<game_id>``, which cancels the grace period on
every other gateway.
"""

from __future__ import annotations

import asyncio

from engine.state import OVER
from schemas import commands as cmd
from schemas.codes import TRANSIENT
from services.lobby.commands import Commands, now_ms
from services.lobby.errors import LobbyError
from services.lobby.following import Hub
from services.platform import logs

_log = logs.get("gateway")


class Grace:
    def __init__(self, commands: Commands, seconds: float) -> None:
        self.commands, self.seconds = commands, seconds
        self.running: dict[tuple[str, int], asyncio.Task[None]] = {}

    def start(self, hub: Hub, seat: int, player_id: str) -> None:
        key = (hub.game_id, seat)
        if key in self.running or hub.state.phase == OVER or hub.seat_watched(seat):
            return

        async def expire() -> None:
            try:
                await asyncio.sleep(self.seconds)
                state = hub.state
                if state.phase == OVER or state.bots >> seat & 1:
                    return
                _log.info("seat_grace_expired", game_id=hub.game_id, seat=seat)
                command_id = f"{player_id}:grace-leave:{state.version}"
                for attempt in range(6):  # the same command id: applied once however often
                    try:
                        await self.commands.send("", hub.game_id, command_id,
                                                 cmd.LeaveSeat(seat=seat, at=now_ms()))
                        return
                    except LobbyError as exc:
                        if exc.code not in TRANSIENT:
                            return  # the rules refused (the seat is a bot's already, ...)
                        _log.warning("seat_leave_retry", game_id=hub.game_id, seat=seat,
                                     code=exc.code, attempt=attempt)
                        await asyncio.sleep(0.25 * (attempt + 1))
            finally:
                if self.running.get(key) is task:
                    del self.running[key]

        task = asyncio.get_running_loop().create_task(expire())
        self.running[key] = task

    def cancel(self, game_id: str, seat: int) -> None:
        task = self.running.pop((game_id, seat), None)
        if task is not None:
            task.cancel()

    def stop(self) -> None:
        for task in self.running.values():
            task.cancel()
