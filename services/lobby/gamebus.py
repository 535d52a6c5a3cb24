"""The lobby's side of the bus to the game workers, in the lobby's own terms.

Services call these methods with and get back ``schemas`` Structs only; NATS
errors (no worker answers, a timeout) become ``GameUnavailable`` and a
worker's error reply becomes a not-ok ``GameReply``, here and nowhere else.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import msgspec
import nats.errors
from nats.aio.client import Client
from nats.js.api import DeliverPolicy

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
from services.platform import bus, logs

T = TypeVar("T", bound=msgspec.Struct)
_encoder = msgspec.msgpack.Encoder()
_log = logs.get("gateway")


class GameUnavailable(Exception):
    """No game worker answered in time."""


class Following:
    """A game's events from its first, in order, then live: ``caught_up`` once the
    history is in. Ends with ``stop``."""

    def __init__(self) -> None:
        self._sub: Any = None
        self.caught_up = asyncio.Event()

    async def stop(self) -> None:
        with contextlib.suppress(Exception):
            await self._sub.unsubscribe()


class GameBus:
    def __init__(self, nc: Client, names: Names, timeout: float) -> None:
        self.nc, self.names, self.timeout = nc, names, timeout

    async def _ask(self, subject: str, body: msgspec.Struct, reply: type[T]) -> T:
        try:
            return await bus.request(self.nc, subject, body, reply, timeout=self.timeout)
        except (nats.errors.NoRespondersError, nats.errors.TimeoutError, TimeoutError):
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
        """Every event of one game, from JetStream (an ordered consumer from the first
        event: history and live events come the same way, in order, without gaps the
        client library does not repair). Undecodable envelopes are logged and skipped."""
        decoder = msgspec.msgpack.Decoder(EventEnvelope)
        following = Following()

        async def on_msg(msg: Any) -> None:
            try:
                env = decoder.decode(msg.data)
            except (msgspec.DecodeError, msgspec.ValidationError):
                _log.error("undecodable_envelope", game_id=game_id)
            else:
                handler(env)
            if following.caught_up.is_set():
                return  # live: no need to parse each message's metadata again
            with contextlib.suppress(Exception):
                if msg.metadata.num_pending == 0:
                    following.caught_up.set()

        js = self.nc.jetstream()
        following._sub = await js.subscribe(
            self.names.game_event(game_id, "*"), cb=on_msg, ordered_consumer=True,
            deliver_policy=DeliverPolicy.ALL)
        info = await following._sub.consumer_info()
        if info.num_pending == 0 and (info.delivered is None or not info.delivered.consumer_seq):
            following.caught_up.set()  # nothing stored yet: a game about to begin
        return following

    async def chat(self, line: ChatLine) -> None:
        await self.nc.publish(self.names.game_chat(line.game_id), _encoder.encode(line))

    async def table_changed(self, table_id: str, game_id: str = "") -> None:
        await self.nc.publish(self.names.lobby_tables,
                              _encoder.encode(TableChanged(table_id=table_id, game_id=game_id)))

    async def seat_present(self, p: SeatPresent) -> None:
        await self.nc.publish(self.names.lobby_presence(p.game_id), _encoder.encode(p))

    async def note(self, player_id: str, note: Note) -> None:
        await self.nc.publish(self.names.player_note(player_id), _encoder.encode(note))

    async def listen_notes(self, handler: Callable[[str, Note], Awaitable[None]]) -> Any:
        """Every player's notes, with the player id from the subject."""
        async def note(subject: str, body: Any) -> None:
            await handler(subject.rsplit(".", 1)[-1], body)

        return await self._listen(self.names.player_notes_all, msgspec.msgpack.Decoder(Note),
                                  note)

    async def listen(self, subject: str, kind: type[T],
                     handler: Callable[[T], Awaitable[None]]) -> Any:
        """Subscribe to plain publications of one type."""
        async def body_only(_: str, body: Any) -> None:
            await handler(body)

        return await self._listen(subject, msgspec.msgpack.Decoder(kind), body_only)

    async def _listen(self, subject: str, decoder: msgspec.msgpack.Decoder[Any],
                      handler: Callable[[str, Any], Awaitable[None]]) -> Any:
        """Undecodable publications are dropped: a sender's bug never stops the others."""
        async def on_msg(msg: Any) -> None:
            try:
                body = decoder.decode(msg.data)
            except (msgspec.DecodeError, msgspec.ValidationError):
                return
            await handler(msg.subject, body)

        return await self.nc.subscribe(subject, cb=on_msg)
