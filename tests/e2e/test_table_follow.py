"""A socket that subscribes to a table hears the table's game start even when the start
is committed, and announced, while the socket's read of the row is on its way: the row
read before the start is not its last word (``TableFeed.follow``)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from schemas import ws
from services.lobby.accounts.auth import Claims
from services.lobby.base.settings import LobbySettings
from services.lobby.edge.connections import Conn
from services.lobby.tables import store
from tests.e2e import inprocess
from tests.e2e.conftest import Platform
from tests.services.lobby.harness import Player
from tests.waiting import until


async def _tables(conn: Conn, seen: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The table frames the socket was sent so far, kept in ``seen``."""
    while not conn.outbox.empty():
        data = conn.outbox.get_nowait()
        frame = json.loads(data) if data else {}
        if frame.get("type") == "table":
            seen.append(frame["table"])
    return seen


async def test_a_game_started_while_the_tables_row_is_read_is_the_sockets_last_word(
        platform: Platform, database_url: str, nats_url: str, nats_prefix: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    host = await Player.guest(platform.a.url, "Host")
    t = await host.ok("POST", "/v1/tables", {"rules": "quick"})
    table_id = t["table_id"]
    seen: list[dict[str, Any]] = []
    settings = LobbySettings(database_url="", nats_url="")
    async with inprocess.gateway(database_url, nats_url, f"{nats_prefix}e2e", "follow",
                                 settings) as gateway:
        await gateway.start()
        conn = gateway.conns.open(Claims("watcher", "Watcher", False, 0))
        read = store.get_table
        slowed = [True]

        async def row_on_its_way(pool: Any, wanted: str) -> store.TableRow | None:
            row = await read(pool, wanted)  # the table as it was: open
            if slowed and wanted == table_id:
                slowed.clear()
                await host.ok("POST", f"/v1/tables/{table_id}/start")

                async def told() -> bool:  # the start reached the socket meanwhile
                    return any(s["game_id"] for s in await _tables(conn, seen))

                await until(told, timeout=10)
            return row

        monkeypatch.setattr(store, "get_table", row_on_its_way)
        try:
            await gateway.subscriptions.on_subscribe(conn, ws.Subscribe(table_id=table_id))
            assert not slowed
            stale = len(await _tables(conn, seen))
            assert seen[-1]["game_id"] is None  # the row read before the start, sent last

            async def started_last() -> bool:
                tables = await _tables(conn, seen)
                return len(tables) > stale and bool(tables[-1]["game_id"])

            await until(started_last, timeout=10)
        finally:
            await gateway.stop()
    await host.aclose()
