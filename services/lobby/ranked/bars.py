"""Fair play's bar from ranked, applied to tickets already in the queue.

A join is refused to a barred player (``Eligibility.check``), but a bar can begin
while the player waits: an operator upholds a case over HTTP or on the command
line (docs/fairplay.md), either way in the ratings service's tables. So the
matchmaker, before each round of matching, asks the ratings service which of the
queued players are barred now and takes their tickets out: a pair's ticket goes
with its barred player (the partner is told ``partner_unavailable``, as a join
naming a barred partner is: whose bar it is stays theirs), and a barred player in
a ready check declines it, as leaving the queue then does (the others go back to
the queue). A ratings service that does not answer bars nobody this round; the
next round asks again.
"""

from __future__ import annotations

from schemas.fairplay import BARRED_AT_ONCE
from schemas.notes import QueueStatus
from services.lobby.base.errors import LobbyError
from services.lobby.ranked import store as qs
from services.lobby.ranked.queue import Queue
from services.platform import logs

_log = logs.get("queue")


async def barred_now(queue: Queue, players: list[str]) -> set[str] | None:
    """Which of ``players`` are barred from ranked now; None when the ratings service
    did not answer."""
    out: set[str] = set()
    try:
        for i in range(0, len(players), BARRED_AT_ONCE):
            out |= {b.player_id for b in
                    await queue.ratings.barred(players[i:i + BARRED_AT_ONCE])}
    except LobbyError as exc:
        _log.warning("queue_bars_unknown", code=exc.code, queued=len(players))
        return None
    return out


async def drop_barred(queue: Queue, fence: tuple[str, int]) -> int:
    """Take every ticket holding a barred player out of the queue, under the
    matchmaker's ``fence``, and tell its players; how many tickets went."""
    barred = await barred_now(queue, await qs.queued(queue.pool))
    if not barred:
        return 0
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
