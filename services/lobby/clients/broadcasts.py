"""The lobby's publications and what it listens to, besides the games themselves.

Notes to players (``player.note.<id>``, whichever gateway holds their sockets), a
table's change (``lobby.tables``), a seat's presence and a game's chat lines go out
here, and the gateways listen to them here. Bodies are ``schemas`` Structs; the bus
under them is the platform's (``BusClient``), so a broker away is ``Unavailable``.
The game workers' requests and a game's event stream are ``GameClient``'s.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

import msgspec

from schemas.gamebus import ChatLine, SeatPresent, TableChanged
from schemas.notes import Note
from schemas.subjects import Names
from services.platform.busclient import BusClient, Listening

T = TypeVar("T", bound=msgspec.Struct)


class Broadcasts:
    def __init__(self, client: BusClient, names: Names) -> None:
        self.client, self.names = client, names

    async def chat(self, line: ChatLine) -> None:
        await self.client.publish(self.names.game_chat(line.game_id), line)

    async def table_changed(self, table_id: str, game_id: str = "") -> None:
        await self.client.publish(self.names.lobby_tables,
                                  TableChanged(table_id=table_id, game_id=game_id))

    async def seat_present(self, p: SeatPresent) -> None:
        await self.client.publish(self.names.lobby_presence(p.game_id), p)

    async def note(self, player_id: str, note: Note) -> None:
        await self.client.publish(self.names.player_note(player_id), note)

    async def listen_notes(self, handler: Callable[[str, Note], Awaitable[None]]) -> Listening:
        """Every player's notes, with the player id from the subject."""
        async def note(subject: str, body: Note) -> None:
            await handler(subject.rsplit(".", 1)[-1], body)

        return await self.client.listen(self.names.player_notes_all, Note, note)  # type: ignore[arg-type]

    async def listen(self, subject: str, kind: type[T],
                     handler: Callable[[T], Awaitable[None]]) -> Listening:
        """Plain publications of one type."""
        async def body_only(_: str, body: T) -> None:
            await handler(body)

        return await self.client.listen(subject, kind, body_only)
