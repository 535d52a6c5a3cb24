"""Open tables out to the sockets that watch them.

Any lobby copy that changes a table says so on ``lobby.tables``; every
gateway then sends a fresh ``table_list`` to its sockets that watch the list,
a ``table`` frame to those that follow that table, and refreshes the table
row its followed game keeps (banter switch). A burst of changes makes one
refresh.

A socket that starts to follow a table reads its row here (``follow``): followed
first, so a change committed while the row is on its way reaches it, and refreshed
again after the row is sent when a change was heard meanwhile, so a row read just
before that change is never the socket's last word.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
from typing import Any

from schemas import ws
from schemas.gamebus import TableChanged
from schemas.subjects import Names
from services.lobby.clients.broadcasts import Broadcasts
from services.lobby.edge.connections import Conn, Connections, PerSocket, encode
from services.lobby.edge.following import Hubs
from services.lobby.tables import store
from services.lobby.tables.rows import to_api
from services.lobby.tables.tables import Tables

HEARD = 1024  # the latest changes kept for the reads under way to look back on


class TableFeed:
    def __init__(self, tables: Tables, broadcasts: Broadcasts, names: Names,
                 conns: Connections, hubs: Hubs) -> None:
        self.tables, self.broadcasts, self.names = tables, broadcasts, names
        self.hubs = hubs
        self.listing: PerSocket[bool] = PerSocket(conns, lambda: True)  # watching the list
        # Tables whose changes a socket gets: an open one it follows, a followed game's.
        self.follows: PerSocket[set[str]] = PerSocket(conns, set)
        self._note: asyncio.Task[None] | None = None
        self._changed: set[str] = set()
        self._listening: Any = None
        self._heard = 0  # changes heard so far; the latest, numbered, in ``_recent``
        self._recent: collections.deque[tuple[int, str]] = collections.deque(maxlen=HEARD)

    async def start(self) -> None:
        self._listening = await self.broadcasts.listen(self.names.lobby_tables, TableChanged,
                                                       self._on_table_changed)

    async def stop(self) -> None:
        if self._listening is not None:
            with contextlib.suppress(Exception):
                await self._listening.unsubscribe()

    async def on_watch(self, conn: Conn, frame: ws.WatchTables) -> None:
        if not frame.on:
            self.listing.drop(conn)
        else:
            self.listing.of(conn)
            conn.send(ws.TableListFrame(tables=await self.tables.list_open()))

    def handlers(self) -> dict[type[ws.ClientFrame], Any]:
        return {ws.WatchTables: self.on_watch}

    async def read(self, table_id: str) -> tuple[store.TableRow | None, bool]:
        """``table_id``'s row (None: no such table), and whether a change to it was heard
        while the row was on its way: the row may then be older than the change, which
        ``follow`` sends again."""
        before = self._heard
        table = await store.get_table(self.tables.pool, table_id)
        since = self._heard - before
        return table, bool(since) and (since > len(self._recent) or any(
            t == table_id for _, t in list(self._recent)[-since:]))

    def follow(self, conn: Conn, table_id: str, changed: bool) -> None:
        """From now on ``conn`` hears of ``table_id``'s changes. Only once the caller has
        read the row and decided (``read``), so a socket refused the table is never sent
        a change of it; one heard during the read (``changed``) is sent again, after the
        row the caller sends at once."""
        self.follows.of(conn).add(table_id)
        if changed:
            self._note_change(table_id)

    async def _on_table_changed(self, note: TableChanged) -> None:
        self._heard += 1
        self._recent.append((self._heard, note.table_id))
        self._note_change(note.table_id)

    def _note_change(self, table_id: str) -> None:
        self._changed.add(table_id)
        if self._note is None or self._note.done():
            self._note = asyncio.get_running_loop().create_task(self._tables_changed())

    async def _tables_changed(self) -> None:
        # Until nothing is left: a change heard while a batch is being sent (its reads
        # await) starts no task of its own, and would otherwise wait for the next change,
        # which may never come (a table's game started, its last change for a while).
        while self._changed:
            await asyncio.sleep(0.05)  # one refresh for a burst of changes
            changed, self._changed = self._changed, set()
            await self._send(changed)

    async def _send(self, changed: set[str]) -> None:
        watchers = [c for c, _ in self.listing.items()]
        if watchers:
            frame = encode(ws.TableListFrame(tables=await self.tables.list_open()))
            for c in watchers:
                c.send_raw(frame)
        for table_id in changed:
            hubs = [h for h in self.hubs if h.table_id == table_id]
            if not hubs and not any(table_id in t for _, t in self.follows.items()):
                continue
            table = await store.get_table(self.tables.pool, table_id)
            if table is None:
                continue
            for hub in hubs:
                hub.table = table
            # Those who follow it now: a socket that let it go during the read hears
            # nothing more of it.
            for c, tables in self.follows.items():
                if table_id in tables:
                    c.send(ws.TableFrame(table=to_api(table, c.player_id)))
