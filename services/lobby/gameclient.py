"""The lobby's client of the game workers: creating a game, a command, a game's events.

Services call these methods with and get back ``schemas`` Structs only; the bus
being away (no worker answers, a timeout: the platform's ``Unavailable``) becomes
``GameUnavailable`` and a worker's error reply a not-ok ``GameReply``, here and
nowhere else. Notes, tables' changes, presence and chat are ``Broadcasts``'.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import msgspec

from schemas.bus import EventEnvelope
from schemas.errors import from_service
from schemas.play import CreateGame, EventsReply, EventsSince, GameReply, GameRequest
from schemas.subjects import Names
from services.platform import bus
from services.platform.busclient import BusClient, Following, Unavailable

T = TypeVar("T", bound=msgspec.Struct)

__all__ = ["Following", "GameClient", "GameUnavailable"]


class GameUnavailable(Exception):
    """No game worker answered in time."""


class GameClient:
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
