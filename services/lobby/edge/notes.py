"""Notes to a player, out to every socket that player has open on this gateway.

Each gateway listens to ``player.note.*`` once and keeps the notes of players
with a socket here: notes are rare (a match starts, a rating moves), so one
subscription per gateway costs less than one per player coming and going.
"""

from __future__ import annotations

import contextlib
from typing import Any

from schemas import ws
from schemas.notes import Note
from services.lobby.clients.broadcasts import Broadcasts
from services.lobby.edge.connections import Connections, encode


class Notes:
    def __init__(self, broadcasts: Broadcasts, conns: Connections) -> None:
        self.broadcasts, self.conns = broadcasts, conns
        self._listening: Any = None

    async def start(self) -> None:
        self._listening = await self.broadcasts.listen_notes(self._on_note)

    async def stop(self) -> None:
        if self._listening is not None:
            with contextlib.suppress(Exception):
                await self._listening.unsubscribe()

    async def _on_note(self, player_id: str, note: Note) -> None:
        sockets = self.conns.of(player_id)
        if sockets:
            frame = encode(ws.NoteFrame(note=note))
            for conn in sockets:
                conn.send_raw(frame)
