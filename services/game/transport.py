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

from schemas.gamebus import ChatLine, CreateGame, EventsSince, GameReply, GameRequest
from schemas.subjects import Names
from services.game.worker import GameWorker
from services.platform import bus
from services.platform.busclient import BusClient, Listening, Refused


class GameTransport:
    """The worker's ``Outlet``: its subscriptions, publications and endpoints."""

    def __init__(self, client: BusClient, names: Names, instance: str) -> None:
        self.client, self.names, self.instance = client, names, instance
        self.worker: GameWorker | None = None
        self._subs: dict[str, Listening] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._handover: Listening | None = None

    def endpoints(self, worker: GameWorker) -> list[bus.Endpoint]:
        """What every worker answers on the services API, whichever games it owns."""
        return [bus.Endpoint("create", CreateGame, worker.create, self._tasks),
                bus.Endpoint("since", EventsSince, worker.events_since, self._tasks)]

    async def start(self, worker: GameWorker) -> None:
        self.worker = worker
        self._handover = await self.client.listen_raw(self.names.game_handover,
                                                      self._on_handover)

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
                raise Refused("400", "the request names another game than its subject")
            return await worker.command(req)

        self._subs[game_id] = await self.client.answer(
            self.names.game_command(game_id),
            bus.Endpoint("command", GameRequest, command, self._tasks))

    async def released(self, game_id: str) -> None:
        sub = self._subs.pop(game_id, None)
        if sub is not None:
            await sub.unsubscribe()

    async def say(self, line: ChatLine) -> None:
        await self.client.publish(self.names.game_chat(line.game_id), line)

    async def handed_over(self) -> None:
        await self.client.publish(self.names.game_handover, self.instance.encode())
        await self.client.flush()

    async def _on_handover(self, data: bytes) -> None:
        if self.worker is not None and data.decode(errors="replace") != self.instance:
            self.worker.poke()
