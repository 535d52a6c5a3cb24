"""Fair play's bar from ranked, applied to tickets already in the queue.

A join is refused to a barred player (``Eligibility.check``), but a bar can begin
while the player waits: an operator upholds a case over HTTP or on the command
line (docs/fairplay.md), either way in the ratings service's tables. The matchmaker
learns of it two ways. Told: once a bar is committed its players are published
(``BarsBegan`` on ``ranked.barred``, by the ratings service, or by the command line
when it reaches the bus), and the matchmaker asks about them again at its next
round, woken at once. Asked: a queued player not asked about for
``queue_bar_recheck_seconds`` is asked about again, so a publication lost costs at
most that wait; everyone else found clear stays clear until then, so a round asks
about the players who joined since, not the whole queue.

A barred player's ticket leaves the queue: a pair's ticket goes with its barred
player (the partner is told ``partner_unavailable``, as a join naming a barred
partner is: whose bar it is stays theirs), and a barred player in a ready check
declines it, as leaving the queue then does (the others go back to the queue). A
ratings service that does not answer bars nobody this round; the next round asks
again.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

from schemas.fairplay import BARRED_AT_ONCE, BarsBegan
from schemas.notes import QueueStatus
from services.lobby.base.errors import LobbyError
from services.lobby.ranked import store as qs
from services.lobby.ranked.queue import Queue
from services.platform import logs

_log = logs.get("queue")


class Bars:
    def __init__(self, queue: Queue, recheck_seconds: float, wake: Callable[[], None],
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.queue, self.recheck, self.wake, self.clock = queue, recheck_seconds, wake, clock
        self._clear: dict[str, float] = {}  # player -> when last found not barred

    async def on_published(self, began: BarsBegan) -> None:
        """A bar was committed: its players are asked about in a round started now (by
        the copy that leads; the others' rounds find they do not)."""
        self.began(began.players)
        self.wake()

    def began(self, players: Iterable[str]) -> None:
        """A bar of these players was committed: ask about them again."""
        for p in players:
            self._clear.pop(p, None)

    def cleared(self, players: Iterable[str], at: float) -> None:
        """These players were found not barred when asked at ``at``."""
        self._clear.update((p, at) for p in players)

    def due(self, queued: list[str]) -> list[str]:
        """Which of ``queued`` to ask about now; those who left are forgotten."""
        now, kept = self.clock(), set(queued)
        self._clear = {p: at for p, at in self._clear.items() if p in kept}
        return [p for p in queued if now - self._clear.get(p, -self.recheck) >= self.recheck]

    async def drop(self, fence: tuple[str, int]) -> int:
        """Take every ticket holding a barred player out of the queue, under the
        matchmaker's ``fence``, and tell its players; how many tickets went."""
        asked = self.due(await qs.queued(self.queue.pool))
        if not asked:
            return 0
        at = self.clock()
        barred = await barred_now(self.queue, asked)
        if barred is None:
            return 0
        self.cleared((p for p in asked if p not in barred), at)
        if not barred:
            return 0
        return await _take_out(self.queue, fence, barred)


async def barred_now(queue: Queue, players: list[str]) -> set[str] | None:
    """Which of ``players`` are barred from ranked now; None when the ratings service
    did not answer."""
    out: set[str] = set()
    try:
        for i in range(0, len(players), BARRED_AT_ONCE):
            out |= {b.player_id for b in
                    await queue.ratings.barred(players[i:i + BARRED_AT_ONCE])}
    except LobbyError as exc:
        _log.warning("queue_bars_unknown", code=exc.code, asked=len(players))
        return None
    return out


async def _take_out(queue: Queue, fence: tuple[str, int], barred: set[str]) -> int:
    dropped, matched = await qs.drop_players(queue.pool, fence, sorted(barred))
    for ticket in dropped:
        _log.info("queue_ticket_barred", ticket_id=ticket.ticket_id,
                  players=list(ticket.players))
        for p in ticket.players:
            partner = next((q for q in ticket.players if q != p), ticket.partner)
            await queue.broadcasts.note(p, QueueStatus(
                state="none", partner=partner,
                reason="ranked_barred" if p in barred else "partner_unavailable"))
    for ticket in matched:
        for p in sorted(barred & set(ticket.players)):
            try:
                await queue.leave(p)  # declines the ready check, and settles it
            except LobbyError as exc:  # left meanwhile, or the next round tries again
                _log.warning("queue_barred_decline_failed", player_id=p, code=exc.code)
    return len(dropped) + len(matched)
