"""The moves of a game that nobody sends: a bot seat's, and a clock's expiry.

A game's task asks ``DueMoves`` when the next such move is due and, once it is,
which command makes it. Kept apart from the task's own loop because the timing
has rules of its own (a bot moves once it has thought, or at its deadline if
that comes first; an adopted game's clocks restart a window after adoption) and
because a move that failed must not be tried again until the state changes.
"""

from __future__ import annotations

import asyncio
import zlib

from engine import bots
from engine.state import OVER, GameState, born_bots, seats_in
from schemas import commands as cmd
from services.platform import logs

_log = logs.get("game")


def bot_seats(players: tuple[str, ...]) -> tuple[int, dict[int, str]]:
    """Seats a bot plays from the start (``bot:<level>``) and their levels."""
    mask = born_bots(players)
    return mask, {seat: players[seat][4:] or "basic" for seat in seats_in(mask)}


class DueMoves:
    def __init__(self, game_id: str, players: tuple[str, ...], think_ms: int, changed_ms: int,
                 clock_floor: int = 0) -> None:
        self.game_id = game_id
        self.think_ms = think_ms
        self.born_bots, self.levels = bot_seats(players)
        self.changed_ms = changed_ms  # when the state last changed: bots think from then
        # No person's clock runs out before this (an adopted game's window, see ``deadline``).
        self.clock_floor = clock_floor
        # Internal moves that failed at this version: not again until the state changes.
        self.bot_blocked = -1
        self.clock_blocked = -1

    def bot_mask(self, s: GameState) -> int:
        return self.born_bots | s.bots

    def level(self, seat: int) -> str:
        return self.levels.get(seat, "basic")

    def player(self, s: GameState, seat: int) -> str:
        """Who a bot seat is: the bot that sat there, or ``bot:<level>`` for a seat a
        bot took over."""
        player = s.players[seat]
        return player if player.startswith("bot:") else f"bot:{self.level(seat)}"

    def due(self, s: GameState) -> int | None:
        """When the next move is due that nobody sends: a bot's, or a clock's expiry."""
        if s.phase == OVER or not s.waiting:
            return None
        bot = self.bot_turn(s)
        due = bot[0] if bot else None
        if self.clock_blocked == s.version:
            return due
        for seat in seats_in(s.waiting):
            d = self.deadline(s, seat)
            if d and (due is None or d < due):
                due = d
        return due

    def bot_turn(self, s: GameState) -> tuple[int, int] | None:
        """When a waiting bot seat moves, and which: once it has thought, or when its clock
        runs out if that comes first. A bot makes its own move at its deadline rather than
        let the clock's expiry decide for it, so a clock shorter than the thinking time (or
        a failover longer than the clock) never turns into a timeout."""
        waiting = s.waiting & self.bot_mask(s)
        if not waiting or self.bot_blocked == s.version:
            return None
        thought = self.changed_ms + self.think_ms
        return min((min(thought, s.deadlines[seat] or thought), seat)
                   for seat in seats_in(waiting))

    def deadline(self, s: GameState, seat: int) -> int:
        """When the clock's expiry is sent for ``seat`` (0: it has no clock running): its
        recorded deadline, but never before ``clock_floor``. A worker that adopts a game
        sets that floor a window after the adoption (``adopt_grace_ms``), so a clock that
        ran out while no worker owned the game (and nobody could move) restarts instead of
        timing the seat out at once. The floor moves only the worker's sending; the
        expiry's time is recorded as always, so the events stay the whole truth."""
        d = s.deadlines[seat]
        return max(d, self.clock_floor) if d else 0

    async def next(self, s: GameState, now: int) -> tuple[str, int, cmd.Command] | None:
        """The move due at ``now``: its origin (``bot`` or ``clock``), seat and command;
        None when nothing is due (or a bot has no move: then not again at this version)."""
        bot = self.bot_turn(s)
        if bot is not None and now >= bot[0]:
            seat = bot[1]
            level = self.level(seat)
            seed = zlib.crc32(f"{self.game_id}:{s.version}".encode())
            try:
                if bots.instant(s, seat, level):  # tens of microseconds: right here
                    return "bot", seat, bots.choose(s, seat, level, seed=seed, at=now)
                # a search of milliseconds (or a blind nil's first pricing, a third of a
                # second): off the loop, so other games and their clocks keep moving
                return "bot", seat, await asyncio.to_thread(bots.choose, s, seat, level,
                                                            seed=seed, at=now)
            except (bots.NothingToDo, ValueError) as exc:
                _log.warning("bot_has_no_move", seat=seat, error=str(exc))
                self.bot_blocked = s.version
                return None
        expired = [seat for seat in seats_in(s.waiting) if 0 < self.deadline(s, seat) <= now]
        if not expired:
            return None
        # the move rides in the command
        return "clock", expired[0], bots.timeout_command(s, expired[0], at=now)

    def block(self, origin: str, version: int) -> None:
        """A move of ``origin`` changed nothing at ``version``: asking again would do the
        same, so not before the state moves on."""
        if origin == "bot":
            self.bot_blocked = version
        else:
            self.clock_blocked = version
