"""The game workers on NATS: decode, call the worker, encode. Nothing else.

- ``game.create`` (NATS services API endpoint, one queue group for every
  worker): ``CreateGame`` -> ``GameReply``; whichever worker takes it owns the game.
- ``game.cmd.<game_id>``: ``GameRequest`` -> ``GameReply``, listened to only by
  the game's owner, subscribed when it takes the game and dropped when it lets
  go. No owner means no responder: the gateway sends the command again (same
  command id) after the game's adoption.
- ``game.since.*`` (services API endpoint, queue group): ``EventsSince`` ->
  ``EventsReply`` from the store, answered by any worker.
- ``game.chat.<game_id>``: bot table talk, published.
- ``game.handover``: a worker leaving asks the others to adopt its games now.

Each message is handled in its own task, so a slow game never holds up another
and a game's bounded inbox really sees its commands arrive together (and says
``busy`` when too many do). Undecodable requests get a ``400`` error reply.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import msgspec
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription
from nats.micro import add_service
from nats.micro.request import Request

from schemas.play import ChatLine, CreateGame, EventsSince, GameRequest
from schemas.subjects import Names
from services.game.worker import GameWorker
from services.platform import logs

_log = logs.get("game")
_encoder = msgspec.msgpack.Encoder()

QUEUE = "game-workers"


class GameTransport:
    """The worker's ``Outlet``: its subscriptions, publications and endpoints."""

    def __init__(self, nc: Client, names: Names, instance: str, version: str) -> None:
        self.nc, self.names, self.instance, self.version = nc, names, instance, version
        self.worker: GameWorker | None = None
        self._subs: dict[str, Subscription] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._service: Any = None
        self._handover: Subscription | None = None

    async def start(self, worker: GameWorker) -> None:
        self.worker = worker
        self._handover = await self.nc.subscribe(self.names.game_handover, cb=self._on_handover)
        svc = await add_service(self.nc, name="game-worker", version=self.version,
                                metadata={"instance": self.instance})
        await svc.add_endpoint(name="create", subject=self.names.game_create, queue_group=QUEUE,
                               handler=self._spawn(CreateGame, worker.create))
        await svc.add_endpoint(name="since", subject=self.names.game_events_since_all,
                               queue_group=QUEUE,
                               handler=self._spawn(EventsSince, worker.events_since))
        self._service = svc

    async def stop_listening(self) -> None:
        """No new creates or event reads: the worker is about to hand over."""
        if self._service is not None:
            await self._service.stop()
            self._service = None
        if self._handover is not None:
            await self._handover.unsubscribe()
            self._handover = None

    async def finish(self) -> None:
        """Wait for replies in flight (they were answered by the worker already)."""
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=5)

    # --- the Outlet ----------------------------------------------------------------

    async def owned(self, game_id: str) -> None:
        if game_id in self._subs or self.worker is None:
            return
        handle = self._spawn(GameRequest, self.worker.command, only_game=game_id)

        async def on_msg(msg: Msg) -> None:
            await handle(Request(msg))

        self._subs[game_id] = await self.nc.subscribe(self.names.game_command(game_id),
                                                      cb=on_msg)

    async def released(self, game_id: str) -> None:
        sub = self._subs.pop(game_id, None)
        if sub is not None:
            await sub.unsubscribe()

    async def say(self, line: ChatLine) -> None:
        await self.nc.publish(self.names.game_chat(line.game_id), _encoder.encode(line))

    async def handed_over(self) -> None:
        await self.nc.publish(self.names.game_handover, self.instance.encode())
        await self.nc.flush()

    # --- plumbing ------------------------------------------------------------------

    async def _on_handover(self, msg: Msg) -> None:
        if self.worker is not None and msg.data.decode(errors="replace") != self.instance:
            self.worker.poke()

    def _spawn(self, kind: type[msgspec.Struct], call: Callable[[Any], Awaitable[Any]],
               only_game: str = "") -> Callable[[Request], Awaitable[None]]:
        decoder = msgspec.msgpack.Decoder(kind)

        async def handle(req: Request) -> None:
            try:
                body = decoder.decode(req.data)
            except (msgspec.DecodeError, msgspec.ValidationError) as exc:
                _log.warning("bad_request", subject=req.subject, error=str(exc))
                await req.respond_error("400", f"bad request: {exc}")
                return
            if only_game and getattr(body, "game_id", only_game) != only_game:
                await req.respond_error("400", "the request names another game than its subject")
                return
            task = asyncio.create_task(self._answer(req, call, body))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

        return handle

    async def _answer(self, req: Request, call: Callable[[Any], Awaitable[Any]],
                      body: msgspec.Struct) -> None:
        try:
            reply = await call(body)
        except Exception as exc:
            _log.exception("handler_failed", subject=req.subject)
            await req.respond_error("500", f"internal error: {type(exc).__name__}")
            return
        try:
            await req.respond(_encoder.encode(reply))
        except Exception as exc:  # the connection is going away; the requester retries
            _log.warning("reply_failed", error=repr(exc))
