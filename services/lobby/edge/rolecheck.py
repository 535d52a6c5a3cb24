"""A role that lets an open socket watch a delayed game live, checked again while it
watches.

An operator, and a tournament's organizer, watch a ranked or tournament game live
(``delay.live_watcher``); the role is checked against the account when they
subscribe, and since a socket outlives that moment, again every
``role_check_seconds`` while such a watch lasts. Once the account no longer holds the
role (``spades organizer revoke``, ``spades operator revoke``), the watch turns
delayed there and then (``delay``): the socket gets the game as a
delayed watcher sees it and from then on only what anyone sees. Only sockets that
watch by a role cost a read, one per player and check.
"""

from __future__ import annotations

import asyncio
import contextlib

from services.lobby.accounts import auth
from services.lobby.accounts.auth import Claims
from services.lobby.base.store import Pool
from services.lobby.edge.connections import PerSocket
from services.lobby.edge.delay import still_live
from services.lobby.edge.following import Followers, Sub
from services.platform import db, logs

_log = logs.get("gateway")


class RoleCheck:
    def __init__(self, pool: Pool, followers: Followers, table_follows: PerSocket[set[str]],
                 every: float) -> None:
        self.pool, self.followers, self.every = pool, followers, every
        self.table_follows = table_follows  # a delayed watcher hears of no table change
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.every)
            try:
                await self.check()
            except db.AWAY as exc:  # the next round tries again
                _log.warning("role_check_database_away", error=repr(exc))
            except Exception:  # a bug must not end the checks for good
                _log.exception("role_check_failed")

    async def check(self) -> None:
        """Every watch by a role whose account no longer holds it turns delayed."""
        held: dict[Claims, str] = {}
        for conn, subs in self.followers.items():
            for sub in [s for s in subs.values() if s.by_role is not None]:
                if conn.claims not in held:
                    held[conn.claims] = await auth.role_now(self.pool, conn.claims)
                by_role = sub.by_role
                if by_role is not None and not still_live(by_role, held[conn.claims]) \
                        and subs.get(sub.hub.game_id) is sub:
                    _log.info("live_watch_revoked", player_id=conn.player_id,
                              game_id=sub.hub.game_id, role=by_role)
                    delay(sub, self.table_follows.of(conn))


def delay(sub: Sub, tables: set[str]) -> None:
    """``sub`` watched live by a role it no longer holds: from now on it sees what a
    delayed watcher sees, from a snapshot of that on (and ``subscribed`` again), with
    no await in between."""
    hub = sub.hub
    hub.subs.discard(sub)
    sub.delayed, sub.by_role = True, None
    tables.discard(hub.table_id)  # a delayed watcher hears of no table change (``tables``)
    hub.join(sub, None)
