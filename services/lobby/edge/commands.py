"""Game commands from sockets to the game's worker, and the answers back.

A command frame names its game and seat; the socket must follow the game as
that seat, and the game's own state must say the player holds it and no bot
plays it for now (``seating``). The command id sent on is ``<player_id>:<client command_id>``, so
two players' ids never collide and a retry is applied once. Refusals come
back as typed errors with the rules' (or the platform's) code.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from schemas import commands as cmd
from schemas import ws
from schemas.errors.codes import GAME_UNAVAILABLE, REJECTED
from schemas.gamebus import GameRequest
from services.lobby.base.clock import now_ms
from services.lobby.base.errors import LobbyError
from services.lobby.clients.gameworkers import GameClient, GameUnavailable
from services.lobby.edge.connections import Conn
from services.lobby.edge.following import Followers
from services.lobby.tables.seating import check_acts
from services.platform import tracing


class Commands:
    def __init__(self, games: GameClient, followers: Followers) -> None:
        self.games, self.followers = games, followers

    async def send(self, player_id: str, game_id: str, command_id: str,
                   command: cmd.Command) -> tuple[int, bool]:
        """Send one command; (version after it, duplicate) or a ``LobbyError``."""
        try:
            reply = await self.games.command(GameRequest(
                game_id=game_id, command_id=command_id, command=command,  # type: ignore[arg-type]
                player_id=player_id))
        except GameUnavailable:
            raise LobbyError(GAME_UNAVAILABLE, "no game worker answered; retry the "
                             "same command_id") from None
        if not reply.ok:
            raise LobbyError(reply.code or REJECTED, reply.message)
        return reply.version, reply.duplicate

    async def on_frame(self, conn: Conn, frame: ws.GameCommandFrame) -> None:
        if not tracing.on():
            await self._on_frame(conn, frame)
            return
        # The trace of a player's command starts here: the request to the worker, its
        # commit and the events' delivery to the other seats are its children.
        kind = type(frame).__struct_config__.tag
        with tracing.span(f"command {kind}", tracing.SpanKind.SERVER, attrs={
                "game.id": frame.game_id, "command.id": frame.command_id,
                "player.id": conn.player_id, "seat": frame.seat}):
            await self._on_frame(conn, frame)

    async def _on_frame(self, conn: Conn, frame: ws.GameCommandFrame) -> None:
        sub = self.followers.followed(conn, frame.game_id)
        if sub.seat != frame.seat:
            raise LobbyError("not_your_seat", f"you do not hold seat {frame.seat}")
        check_acts(sub.hub.state, frame.seat, conn.player_id)
        version, duplicate = await self.send(conn.player_id, frame.game_id,
                                             f"{conn.player_id}:{frame.command_id}",
                                             to_command(frame, now_ms()))
        conn.send(ws.Ack(command_id=frame.command_id, version=version, duplicate=duplicate))

    def handlers(self) -> dict[type[ws.ClientFrame], Any]:
        return {kind: self.on_frame for kind in _MAKE}


_MAKE: dict[type[ws.GameCommandFrame], Callable[[Any, int], cmd.Command]] = {
    ws.Bid: lambda f, at: cmd.PlaceBid(seat=f.seat, bid=f.bid, at=at),
    ws.BlindNil: lambda f, at: cmd.BidBlindNil(seat=f.seat, at=at),
    ws.Look: lambda f, at: cmd.LookAtCards(seat=f.seat, at=at),
    ws.Play: lambda f, at: cmd.PlayCard(seat=f.seat, card=f.card.upper(), at=at),
    ws.Premove: lambda f, at: cmd.SetPremove(seat=f.seat, card=f.card.upper(), at=at),
    ws.CancelPremove: lambda f, at: cmd.CancelPremove(seat=f.seat, at=at),
    ws.Pass: lambda f, at: cmd.PassCards(seat=f.seat, cards=tuple(c.upper() for c in f.cards),
                                         at=at),
    ws.Leave: lambda f, at: cmd.LeaveSeat(seat=f.seat, at=at),
}


def to_command(frame: ws.GameCommandFrame, at: int) -> cmd.Command:
    return _MAKE[type(frame)](frame, at)
