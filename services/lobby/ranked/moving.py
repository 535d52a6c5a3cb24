"""A queued player's place across a lobby copy's restart.

A ticket belongs to the socket that joined, and goes when that socket closes
(``Queue.socket_closed``). A socket told to move (its lobby copy draining) is not a
player leaving: its tickets stay, stamped at the move, with no socket, and the
player's next socket on any copy takes them over (``adopt``). Not taken over
within the queue's stale time, they expire as a lost gateway's do.
"""

from __future__ import annotations

from services.lobby.ranked import store as qs
from services.lobby.ranked.queue import Queue
from services.platform import logs

_log = logs.get("queue")


class QueueMoves:
    def __init__(self, queue: Queue) -> None:
        self.queue = queue

    async def moving(self, sockets: list[str]) -> None:
        """These sockets are about to be told to move: their members are marked first,
        so that a player's next socket, however quick, finds the ticket to take over."""
        queue = self.queue
        mine = [s for s in sockets if s in queue.sockets]
        queue.sockets.difference_update(mine)
        if not mine:
            return
        try:
            waiting = await qs.moving(queue.pool, queue.gateway, mine)
        except Exception as exc:  # not stamped again: the tickets expire as stale
            _log.warning("queue_socket_move_failed", error=repr(exc))
            return
        _log.info("queue_sockets_moved", members=waiting)

    async def adopt(self, player: str, socket: str) -> None:
        """A new socket of ``player``: their moved ticket is this socket's now."""
        queue = self.queue
        queue.sockets.add(socket)  # stamped from now on, as a join does
        try:
            taken = await qs.adopt(queue.pool, player, queue.gateway, socket)
        except Exception as exc:
            queue.sockets.discard(socket)
            _log.warning("queue_adopt_failed", error=repr(exc))
            return
        if taken:
            _log.info("queue_socket_adopted", player_id=player)
        else:
            queue.sockets.discard(socket)
