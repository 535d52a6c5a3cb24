"""The lobby's side of the bus to the game workers, in the lobby's own terms.

Services call these methods with and get back ``schemas`` Structs only; NATS
errors (no worker answers, a timeout) become ``GameUnavailable`` and a
worker's error reply becomes a not-ok ``GameReply``, here and nowhere else.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

import msgspec

from schemas.bus import EventEnvelope
from schemas.errors import from_service
from schemas.notes import Note
from schemas.play import (
    ChatLine,
    CreateGame,
    EventsReply,
    EventsSince,
    GameReply,
    GameRequest,
    SeatPresent,
    TableChanged,
)
from schemas.subjects import Names
from services.platform import bus
from services.platform.busclient import BusClient, Following, Listening, Unavailable

T = TypeVar("T", bound=msgspec.Struct)

__all__ = ["Following", "GameBus", "GameUnavailable"]


class GameUnavailable(Exception):
    """No game worker answered in time."""


class GameBus:
    def __init__(self, client: BusClient, names: Names, timeout: float) -> None:
        self.client, self.names, self.timeout = client, names, timeout

    async def _ask(self, subject: str, body: msgspec.Struct, reply: type[T]) -> T:
        try:
            return await self.client.request(subject, body, reply, timeout=self.timeout)
        except Unavailable:
            raise GameUnavailable(subject) from None
    async def create(self, c: CreateGame) -> GameReply:
        try:
            return await self._ask(self.names.game_create, c, GameReply)
        except bus.RemoteError as exc:
            return GameReply(ok=False, code=from_service(exc.code), message=exc.description)

    async def command(self, r: GameRequest) -> GameReply:
        try:
            return await self._ask(self.names.game_command(r.game_id), r, GameReply)
        except bus.RemoteError as exc:
            return GameReply(ok=False, code=from_service(exc.code), message=exc.description)

    async def events_since(self, game_id: str, version: int) -> EventsReply:
        try:
            return await self._ask(self.names.game_events_since,
                                   EventsSince(game_id=game_id, version=version), EventsReply)
        except bus.RemoteError:
            raise GameUnavailable(game_id) from None

    async def events_after(self, game_id: str, version: int) -> EventsReply:
        """Every stored event after ``version``, in pages of the worker's limit."""
        reply = await self.events_since(game_id, version)
        events = list(reply.events)
        while events and events[-1].version < reply.version:
            more = await self.events_since(game_id, events[-1].version)
            if not more.events:
                break
            events += more.events
            reply = more
        return EventsReply(events=events, version=reply.version)

    async def last_event(self, game_id: str) -> EventEnvelope | None:
        """The game's last stored event, straight from the game's store (None: no such
        game). ``GameUnavailable`` when no worker answers."""
        now = (await self.events_since(game_id, 1 << 62)).version
        if now == 0:
            return None
        events = (await self.events_since(game_id, now - 1)).events
        return events[-1] if events else None

    async def follow(self, game_id: str,
                     handler: Callable[[EventEnvelope], None]) -> Following:
        """Every event of one game, from JetStream, from its first: history and live
        events come the same way, in order."""
        try:
            return await self.client.follow(self.names.game_event(game_id, "*"), handler)
        except Unavailable:
            raise GameUnavailable(game_id) from None

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
        """Subscribe to plain publications of one type."""
        async def body_only(_: str, body: T) -> None:
            await handler(body)

        return await self.client.listen(subject, kind, body_only)
