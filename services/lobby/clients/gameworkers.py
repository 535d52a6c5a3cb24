"""The lobby's client of the game workers: creating a game, a command, a game's events.

Services call these methods with and get back ``schemas`` Structs only; the bus
being away (no worker answers, a timeout: the platform's ``Unavailable``) becomes
``GameUnavailable`` and a worker's error reply a not-ok ``GameReply``, here and
nowhere else. Notes, tables' changes, presence and chat are ``Broadcasts``'.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import TypeVar

import msgspec
from tenacity import (
    AsyncRetrying,
    RetryError,
    retry_if_exception_type,
    stop_after_attempt,
    wait_fixed,
)

from schemas.bus import EventEnvelope
from schemas.errors import from_service
from schemas.events import GameEnded
from schemas.gamebus import CreateGame, EventsReply, EventsSince, GameReply, GameRequest
from schemas.subjects import Names
from services.platform import bus, logs
from services.platform.busclient import BusClient, Listening, Unavailable
from services.platform.events import game_registry

T = TypeVar("T", bound=msgspec.Struct)
_log = logs.get("gateway")


class GameUnavailable(Exception):
    """No game worker answered in time."""


class Following:
    """A game's events: the stored ones, then live ones, each handed over once or more
    (the receiver drops what it has); ``caught_up`` once the stored ones are in.
    Ends with ``stop``."""

    def __init__(self, game_id: str, handler: Callable[[EventEnvelope], None]) -> None:
        self.game_id, self._handler = game_id, handler
        self._sub: Listening | None = None
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
        if self._sub is not None:
            await self._sub.unsubscribe()


RESEND_AFTER = 1.0  # seconds without an answer before a request is sent again
RESEND_PAUSE = 0.05  # seconds between a request nobody answered and its next try


class GameClient:
    def __init__(self, client: BusClient, names: Names, timeout: float) -> None:
        self.client, self.names, self.timeout = client, names, timeout
        self._registry = game_registry()
        self._followed: set[Following] = set()
        self._asking: set[asyncio.Task[object]] = set()  # tasks waiting for a reply now
        self._lost: set[asyncio.Task[object]] = set()  # of those, whose request was lost
        client.on_reconnected(self._resume)

    async def _ask(self, subject: str, body: msgspec.Struct, reply: type[T]) -> T:
        """A request and its reply. One in flight when this gateway's connection drops
        (its NATS node died) is lost with it: it is sent again the moment the
        connection is back, under the same id (everything the lobby asks a worker is
        idempotent), instead of waiting out the whole timeout. One lost on the worker's
        side (the worker's node died, and nothing tells this gateway) is sent again
        after ``RESEND_AFTER`` seconds without an answer, and one nobody could take (the
        worker reconnecting) is tried again for as long: a player's command waits about
        that long, not the whole timeout, for a node's death."""
        loop = asyncio.get_running_loop()
        asked_at = loop.time()
        deadline = asked_at + self.timeout
        task = asyncio.current_task()
        assert task is not None
        while True:
            # The request runs in the caller's own task (no task of its own per request),
            # and a reconnection cancels it there (`_resume`), as ``asyncio.timeout`` does
            # a timeout: told from any other cancellation by ``_lost`` and taken back by
            # ``uncancel``.
            self._asking.add(task)
            try:
                return await self.client.request(
                    subject, body, reply,
                    timeout=max(0.01, min(RESEND_AFTER, deadline - loop.time())))
            except asyncio.CancelledError:
                if task not in self._lost or task.uncancel() > 0:
                    raise  # this caller was cancelled, not the connection lost
                if loop.time() >= deadline:
                    raise GameUnavailable(subject) from None
                continue
            except Unavailable as exc:
                # Unanswered in time: lost on the worker's side, or slow; nobody there: a
                # worker between two connections, for a moment only (none at all fails fast).
                now = loop.time()
                late = exc.reason == "TimeoutError" and now < deadline - RESEND_PAUSE
                nobody = exc.reason == "NoRespondersError" and now < asked_at + RESEND_AFTER
                if not (late or nobody):
                    raise GameUnavailable(subject) from None
            finally:
                self._asking.discard(task)
                self._lost.discard(task)
            await asyncio.sleep(RESEND_PAUSE)  # a moment for a worker to come back

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

    async def ending(self, game_id: str) -> tuple[EventEnvelope, GameEnded] | None:
        """The game's end as its own store holds it (None while it runs, or for no such
        game): what a player who saw ``GameEnded`` was told, before any projection of
        it catches up. ``GameUnavailable`` when no worker answers."""
        env = await self.last_event(game_id)
        if env is None or env.type != GameEnded.__name__:
            return None
        ended = self._registry.decode(env.type, env.schema_version, env.body)
        assert isinstance(ended, GameEnded)
        return env, ended

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

        def on_msg(data: bytes) -> None:
            try:
                env = decoder.decode(data)
            except (msgspec.DecodeError, msgspec.ValidationError):
                _log.error("undecodable_envelope", game_id=game_id)
            else:
                following.hand(env)

        following._sub = await self.client.follow_raw(self.names.game_event(game_id, "*"),
                                                      on_msg)
        following._history = asyncio.create_task(self._catch_up(following))
        self._followed.add(following)
        following.forget = self._followed.discard
        return following

    async def _catch_up(self, following: Following, tries: int = 3) -> None:
        """Hand over every stored event after the last one handed over. A game no
        worker knows yet (about to begin) has none; with no worker answering, the
        caller reads the store again itself."""
        retrying = AsyncRetrying(retry=retry_if_exception_type(GameUnavailable),
                                 wait=wait_fixed(0.2), stop=stop_after_attempt(tries))
        with contextlib.suppress(RetryError):
            reply: EventsReply = await retrying(self.events_after, following.game_id,
                                                following.version)
            for env in reply.events:
                following.hand(env)
        following.caught_up.set()

    async def _resume(self) -> None:
        """After a reconnection: requests in flight are sent again, and each followed
        game asks for what it published meanwhile."""
        for task in self._asking - self._lost:
            self._lost.add(task)
            task.cancel()
        for following in list(self._followed):
            following._history = asyncio.create_task(self._catch_up(following))
