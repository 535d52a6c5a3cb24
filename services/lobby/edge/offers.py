"""A player's answer to a match offer over the socket (``match_ready`` and
``match_decline``, each answered with where the match now stands), and the ranked
queue's frames (``queue_join``, ``queue_leave``, ``queue_accept``).

The rooms below decide (``Matches``, ``Queue``); this only names the player from the
socket's token, so nobody can confirm, decline or queue for another."""

from __future__ import annotations

from typing import Any

from schemas import ws
from services.lobby.edge.connections import Conn
from services.lobby.matches.opening import Matches
from services.lobby.ranked.queue import Queue
from services.platform import tracing


class Offers:
    def __init__(self, matches: Matches) -> None:
        self.matches = matches

    async def on_ready(self, conn: Conn, frame: ws.MatchReady) -> None:
        conn.send(ws.MatchFrame(match=await self.matches.ready(frame.match_id, conn.player_id)))

    async def on_decline(self, conn: Conn, frame: ws.MatchDecline) -> None:
        conn.send(ws.MatchFrame(
            match=await self.matches.decline(frame.match_id, conn.player_id)))

    def handlers(self) -> dict[type[ws.ClientFrame], Any]:
        return {ws.MatchReady: self.on_ready, ws.MatchDecline: self.on_decline}


class QueueFrames:
    def __init__(self, queue: Queue) -> None:
        self.queue = queue

    async def on_join(self, conn: Conn, frame: ws.QueueJoin) -> None:
        if not tracing.on():
            await self.queue.join(conn.player_id, conn.claims.guest, conn.id, frame.partner)
            return
        # A ranked match's trace starts here: the ticket keeps it for the matchmaker.
        with tracing.span("queue_join", tracing.SpanKind.SERVER, attrs={
                "player.id": conn.player_id, "partner.id": frame.partner}) as span:
            ticket = await self.queue.join(conn.player_id, conn.claims.guest, conn.id,
                                           frame.partner)
            if span is not None:
                span.set_attribute("ticket.id", ticket.ticket_id)

    async def on_leave(self, conn: Conn, frame: ws.QueueLeave) -> None:
        await self.queue.leave(conn.player_id)

    async def on_accept(self, conn: Conn, frame: ws.QueueAccept) -> None:
        conn.send(ws.MatchFrame(match=await self.queue.accept(conn.player_id, frame.match_id)))

    def handlers(self) -> dict[type[ws.ClientFrame], Any]:
        return {ws.QueueJoin: self.on_join, ws.QueueLeave: self.on_leave,
                ws.QueueAccept: self.on_accept}
