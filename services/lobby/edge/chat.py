"""Table talk: people's chat lines out to the game's followers, bots' banter muted
per player on request.

A line is cleaned (printable characters only), bounded in length and rate
per socket, and published on ``game.chat.<game_id>``; every gateway following
the game fans it out (``following.Hub``), the sender's own included.
"""

from __future__ import annotations

from typing import Any

from schemas import ws
from schemas.gamebus import ChatLine
from services.lobby.base.clock import now_ms
from services.lobby.base.errors import LobbyError
from services.lobby.clients.broadcasts import Broadcasts
from services.lobby.edge.connections import Conn
from services.lobby.edge.following import Followers


class Chat:
    def __init__(self, broadcasts: Broadcasts, max_chars: int, followers: Followers) -> None:
        self.broadcasts, self.max_chars, self.followers = broadcasts, max_chars, followers
        self.muted: dict[str, set[str]] = {}  # player id -> games whose bots it muted

    def bots_muted(self, player_id: str, game_id: str) -> bool:
        return game_id in self.muted.get(player_id, ())

    async def on_chat(self, conn: Conn, frame: ws.Chat) -> None:
        sub = self.followers.followed(conn, frame.game_id)
        text = "".join(c for c in frame.text if c.isprintable()).strip()
        if not text:
            raise LobbyError("bad_field", "chat text is empty")
        if len(text) > self.max_chars:
            raise LobbyError("chat_too_long",
                             f"chat lines are at most {self.max_chars} characters")
        if not conn.chat.take():
            raise LobbyError("chat_rate_limited", "too many chat lines; wait a moment")
        await self.broadcasts.chat(ChatLine(game_id=frame.game_id, seat=sub.seat,
                                            player_id=conn.player_id, text=text,
                                            name=conn.claims.name, at=now_ms()))

    async def on_mute(self, conn: Conn, frame: ws.MuteBots) -> None:
        self.followers.followed(conn, frame.game_id)
        muted = self.muted.setdefault(conn.player_id, set())
        if frame.muted:
            muted.add(frame.game_id)
        else:
            muted.discard(frame.game_id)

    def handlers(self) -> dict[type[ws.ClientFrame], Any]:
        return {ws.Chat: self.on_chat, ws.MuteBots: self.on_mute}
