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
import contextlib

from tenacity import (
    AsyncRetrying,
    RetryCallState,
    RetryError,
    retry_if_exception,
    stop_after_attempt,
    wait_incrementing,
)

from engine.state import OVER
from schemas import commands as cmd
from schemas.errors.codes import TRANSIENT
from services.lobby.base.clock import now_ms
from services.lobby.base.errors import LobbyError
from services.lobby.edge.commands import Commands
from services.lobby.edge.following import Hub
from services.platform import logs

_log = logs.get("gateway")


def _transient(exc: BaseException) -> bool:
    """Worth sending again: the game is moving or its worker away, not a refusal by the
    rules (the seat is a bot's already, ...)."""
    return isinstance(exc, LobbyError) and exc.code in TRANSIENT


def _leave_retries(game_id: str, seat: int) -> AsyncRetrying:
    """Six tries of a grace leave, a quarter second more between each."""

    def log(rs: RetryCallState) -> None:
        exc = rs.outcome.exception() if rs.outcome else None
        _log.warning("seat_leave_retry", game_id=game_id, seat=seat,
                     code=getattr(exc, "code", None), attempt=rs.attempt_number - 1)

    return AsyncRetrying(retry=retry_if_exception(_transient), stop=stop_after_attempt(6),
                         wait=wait_incrementing(start=0.25, increment=0.25),
                         before_sleep=log)


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
                # The same command id every time: applied once however often it is sent.
                with contextlib.suppress(LobbyError, RetryError):  # refused, or gave up
                    async for attempt in _leave_retries(hub.game_id, seat):
                        with attempt:
                            await self.commands.send("", hub.game_id, command_id,
                                                     cmd.LeaveSeat(seat=seat, at=now_ms()))
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
