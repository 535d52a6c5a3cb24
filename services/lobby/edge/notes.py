"""Notes to a player, out to every socket that player has open on this gateway.

Each gateway listens to ``player.note.*`` once and keeps the notes of players
with a socket here: notes are rare (a match starts, a rating moves), so one
subscription per gateway costs less than one per player coming and going.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

from schemas import ws
from schemas.notes import Note, RatingChanged
from services.lobby.clients.broadcasts import Broadcasts
from services.lobby.edge.connections import Connections, encode
from services.platform import tracing


class Notes:
    def __init__(self, broadcasts: Broadcasts, conns: Connections,
                 match_trace: Callable[[str], Awaitable[str | None]]) -> None:
        self.broadcasts, self.conns, self.match_trace = broadcasts, conns, match_trace
        self._listening: Any = None

    async def start(self) -> None:
        self._listening = await self.broadcasts.listen_notes(self._on_note)

    async def stop(self) -> None:
        if self._listening is not None:
            with contextlib.suppress(Exception):
                await self._listening.unsubscribe()

    async def _on_note(self, player_id: str, note: Note) -> None:
        """Out to the player's sockets here (a ``rating_changed`` in a span when traced)."""
        if tracing.on() and isinstance(note, RatingChanged):
            await self._rating_changed(player_id, note)
            return
        self._send(player_id, note)

    async def _rating_changed(self, player_id: str, note: RatingChanged) -> None:
        """The end of a ranked match's story: sent in the trace of the game's rating
        (the note's), linked to the trace of the match that started the game."""
        sockets = self.conns.of(player_id)
        if not sockets:  # every gateway hears every note: the player's gateways send it
            return
        match = tracing.of(await self.match_trace(note.game_id))
        with tracing.span("rating_changed", tracing.SpanKind.PRODUCER, links=[match], attrs={
                "game.id": note.game_id, "player.id": player_id, "sockets": len(sockets)}):
            self._send(player_id, note)

    def _send(self, player_id: str, note: Note) -> None:
        sockets = self.conns.of(player_id)
        if sockets:
            frame = encode(ws.NoteFrame(note=note))
            for conn in sockets:
                conn.send_raw(frame)
