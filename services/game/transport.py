"""The game workers on NATS: decode, call the worker, encode. Nothing else.

- ``svc.game.create`` (NATS services API endpoint, one queue group for every
  worker): ``CreateGame`` -> ``GameReply``; whichever worker takes it owns the game.
- ``svc.game.since`` (services API endpoint, same queue group): ``EventsSince`` ->
  ``EventsReply`` from the store, answered by any worker.
- ``game.cmd.<game_id>``: ``GameRequest`` -> ``GameReply``, listened to only by
  the game's owner, subscribed when it takes the game and dropped when it lets
  go. No owner means no responder: the gateway sends the command again (same
  command id) after the game's adoption.
- ``game.chat.<game_id>``: bot table talk, published.
- ``game.handover``: a worker leaving asks the others to adopt its games now.

The endpoints are declared like every service's (``bus.Endpoint``, served by the
runtime under the service's group); decoding and error replies are the bus's.
Each request is answered in its own task, so a slow game never holds up another
and a game's bounded inbox really sees its commands arrive together (and says
``busy`` when too many do).
"""

from __future__ import annotations

import asyncio

import msgspec
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription
from nats.micro.request import Request, ServiceError

from schemas.play import ChatLine, CreateGame, EventsSince, GameReply, GameRequest
from schemas.subjects import Names
from services.game.worker import GameWorker
from services.platform import bus

_encoder = msgspec.msgpack.Encoder()


class GameTransport:
    """The worker's ``Outlet``: its subscriptions, publications and endpoints."""

    def __init__(self, nc: Client, names: Names, instance: str) -> None:
        self.nc, self.names, self.instance = nc, names, instance
        self.worker: GameWorker | None = None
        self._subs: dict[str, Subscription] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._handover: Subscription | None = None

    def endpoints(self, worker: GameWorker) -> list[bus.Endpoint]:
        """What every worker answers on the services API, whichever games it owns."""
        return [bus.Endpoint("create", CreateGame, worker.create, self._tasks),
                bus.Endpoint("since", EventsSince, worker.events_since, self._tasks)]

    async def start(self, worker: GameWorker) -> None:
        self.worker = worker
        self._handover = await self.nc.subscribe(self.names.game_handover, cb=self._on_handover)

    async def stop_listening(self) -> None:
        """No more handover pokes: the worker is about to hand over its own games."""
        if self._handover is not None:
            await self._handover.unsubscribe()
            self._handover = None

    async def finish(self) -> None:
        """Wait for replies in flight (they were answered by the worker already)."""
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=5)

    # --- the Outlet ----------------------------------------------------------------

    async def owned(self, game_id: str) -> None:
        worker = self.worker
        if game_id in self._subs or worker is None:
            return

        async def command(req: GameRequest) -> GameReply:
            if req.game_id != game_id:
                raise ServiceError("400", "the request names another game than its subject")
            return await worker.command(req)

        handle = bus.responder(bus.Endpoint("command", GameRequest, command, self._tasks))

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

    async def _on_handover(self, msg: Msg) -> None:
        if self.worker is not None and msg.data.decode(errors="replace") != self.instance:
            self.worker.poke()
