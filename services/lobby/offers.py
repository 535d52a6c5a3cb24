"""A player's answer to a match offer over the socket: ``match_ready`` and
``match_decline``, each answered with where the match now stands.

The lobby decides (``Matches``); this only names the player from the socket's
token, so nobody can confirm or decline for another."""

from __future__ import annotations

from typing import Any

from schemas import ws
from services.lobby.connections import Conn
from services.lobby.matches import Matches


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
