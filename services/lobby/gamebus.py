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
    """A game's events: the stored ones, then live ones, each handed over once or more
    (the receiver drops what it has); ``caught_up`` once the stored ones are in.
    Ends with ``stop``."""

    def __init__(self, game_id: str, handler: Callable[[EventEnvelope], None]) -> None:
        self.game_id, self._handler = game_id, handler
        self._sub: Any = None
        self._history: asyncio.Task[None] | None = None
        self.version = 0  # the highest version handed over
        self.caught_up = asyncio.Event()
        self.forget: Callable[[Following], None] = lambda _: None

    def hand(self, env: EventEnvelope) -> None:
        self.version = max(self.version, env.version)
        self._handler(env)

    async def stop(self) -> None:
        self.forget(self)
        if self._history is not None:
            self._history.cancel()
        with contextlib.suppress(Exception):
            await self._sub.unsubscribe()


class GameBus:
    def __init__(self, nc: Client, names: Names, timeout: float) -> None:
        self.nc, self.names, self.timeout = nc, names, timeout
        self._followed: set[Following] = set()
        self._back: asyncio.Future[None] | None = None
        bus.on_reconnected(nc, self._resume)

    async def _ask(self, subject: str, body: msgspec.Struct, reply: type[T]) -> T:
        """A request and its reply. One in flight when this gateway's connection drops
        (its NATS node died) is lost with it: it is sent again the moment the
        connection is back, under the same id (everything the lobby asks a worker is
        idempotent), instead of waiting out the whole timeout."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timeout
        while True:
            back = self._next_reconnection()
            asking = asyncio.ensure_future(bus.request(
                self.nc, subject, body, reply, timeout=max(0.01, deadline - loop.time())))
            try:
                await asyncio.wait((asking, back), return_when=asyncio.FIRST_COMPLETED)
            except asyncio.CancelledError:
                asking.cancel()
                raise
            if asking.done() or loop.time() >= deadline:
                break
            asking.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asking
        try:
            return await asking
        except (nats.errors.NoRespondersError, nats.errors.TimeoutError, TimeoutError):
            raise GameUnavailable(subject) from None

    def _next_reconnection(self) -> asyncio.Future[None]:
        """Resolved when the connection is next back after a loss."""
        if self._back is None or self._back.done():
            self._back = asyncio.get_running_loop().create_future()
        return self._back

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
        """Every event of one game: live ones on a plain subscription to its subjects,
        the stored ones and whatever the connection missed from the game worker's
        store (``svc.game.since``). The worker's publish reaches this gateway as
        JetStream stores it, with no JetStream consumer per game and gateway to feed
        and acknowledge; a gap (an event missed while the connection was away) shows
        as a later version and is filled by the caller, or, when no later event
        comes, by asking again after every reconnection. Undecodable envelopes are
        logged and skipped."""
        decoder = msgspec.msgpack.Decoder(EventEnvelope)
        following = Following(game_id, handler)

        async def on_msg(msg: Any) -> None:
            try:
                env = decoder.decode(msg.data)
            except (msgspec.DecodeError, msgspec.ValidationError):
                _log.error("undecodable_envelope", game_id=game_id)
            else:
                following.hand(env)

        following._sub = await self.nc.subscribe(self.names.game_event(game_id, "*"),
                                                 cb=on_msg)
        following._history = asyncio.create_task(self._catch_up(following))
        self._followed.add(following)
        following.forget = self._followed.discard
        return following

    async def _catch_up(self, following: Following, tries: int = 3) -> None:
        """Hand over every stored event after the last one handed over. A game no
        worker knows yet (about to begin) has none; with no worker answering, the
        caller reads the store again itself."""
        for attempt in range(tries):
            try:
                reply = await self.events_after(following.game_id, following.version)
            except GameUnavailable:
                if attempt + 1 < tries:
                    await asyncio.sleep(0.2)
                continue
            for env in reply.events:
                following.hand(env)
            break
        following.caught_up.set()

    async def _resume(self) -> None:
        """After a reconnection: requests in flight are sent again, and each followed
        game asks for what it published meanwhile."""
        if self._back is not None and not self._back.done():
            self._back.set_result(None)
        for following in list(self._followed):
            following._history = asyncio.create_task(self._catch_up(following))

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
