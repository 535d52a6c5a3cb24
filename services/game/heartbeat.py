"""A worker's heartbeat: its leases renewed, lost games dropped, orphans adopted.

Every ``heartbeat_seconds``, or at once when poked (another worker handed its
games over), one statement renews the leases of every game the worker runs; a game
whose lease went to another worker is closed here (its next append would be refused
anyway). Then live games whose lease ran out are claimed, their epoch bumped, and
adopted: rebuilt from their events and run with their clocks' grace. Postgres away
stops nothing: the heartbeat tries again, and the epoch fence keeps a stale writer
out meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Protocol

from engine.state import OVER
from services.game import metrics
from services.game.actor import GameActor, Host
from services.platform import logs
from services.platform.lease import Lease

_log = logs.get("game")


class Owner(Host, Protocol):
    """The worker whose games the heartbeat keeps."""

    owner: str  # the name its leases are held under
    actors: dict[str, GameActor]

    async def run(self, actor: GameActor) -> None: ...  # start the game's task, listen


class Heartbeat:
    def __init__(self, worker: Owner) -> None:
        self.worker = worker
        self._stopping = False
        self._poke = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        await self.tick()  # adopt what is orphaned before answering anything
        self._task = asyncio.create_task(self._beat(), name="game-heartbeat")

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    async def stop(self) -> None:
        self._stopping = True
        self._poke.set()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    def poke(self) -> None:
        self._poke.set()

    async def _beat(self) -> None:
        while not self._stopping:
            self._poke.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._poke.wait(),
                                       self.worker.settings.heartbeat_seconds)
            if self._stopping:
                return
            try:
                await self.tick()
            except Exception as exc:  # Postgres away: keep trying, the fence keeps us safe
                _log.warning("heartbeat_failed", error=repr(exc))

    async def tick(self) -> None:
        w = self.worker
        mine = [gid for gid, a in w.actors.items() if not a.closing]
        held = await w.store.renew(w.owner, mine, w.settings.lease_seconds)
        for gid in mine:
            if gid not in held and gid in w.actors:
                _log.warning("lease_lost", game_id=gid)
                metrics.LOST.labels("lease").inc()
                actor = w.actors[gid]
                actor.lost = True
                actor.close()
        if self._stopping:
            return
        for claimed in await w.store.claim_orphans(w.owner, w.settings.lease_seconds,
                                                   w.settings.adopt_batch):
            await self._adopt(claimed)

    async def _adopt(self, claimed: Lease) -> None:
        w = self.worker
        game_id = claimed.name
        if game_id in w.actors:
            w.actors[game_id].epoch = claimed.epoch
            return
        try:
            state = await w.rebuild(game_id)
            row = await w.store.game(game_id)
            if state.phase == OVER or row is None:
                await w.store.mark_ended(game_id)
                return
            refused = await w.store.refusals(game_id)
        except Exception as exc:
            _log.warning("adoption_failed", game_id=game_id, error=repr(exc))
            await w.store.release(w.owner, [game_id])
            return
        actor = GameActor(w, game_id, claimed.epoch, state, row.banter, refused,
                          clock_floor=w.clock.now_ms() + w.settings.adopt_grace_ms)
        await w.run(actor)
        metrics.ADOPTIONS.inc()
        _log.info("adopted", game_id=game_id, epoch=claimed.epoch, version=state.version,
                  phase=state.phase)
