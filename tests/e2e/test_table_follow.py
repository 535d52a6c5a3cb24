"""What a socket that subscribes to a table hears of the changes announced while its read
of the row is on its way (``TableFeed.read``, ``TableFeed.follow``): the row read before
the table's game started is not its last word, and a socket refused the table hears
nothing of them."""

from __future__ import annotations

import json
from typing import Any

import pytest

from schemas import ws
from services.lobby.accounts.auth import Claims
from services.lobby.base.errors import LobbyError
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
        # One who followed the table before: it hears of the start while the row is read.
        early = gateway.conns.open(Claims("early", "Early", False, 0))
        await gateway.subscriptions.on_subscribe(early, ws.Subscribe(table_id=table_id))
        read = store.get_table
        slowed = [True]

        async def row_on_its_way(pool: Any, wanted: str) -> store.TableRow | None:
            row = await read(pool, wanted)  # the table as it was: open
            if slowed and wanted == table_id:
                slowed.clear()
                await host.ok("POST", f"/v1/tables/{table_id}/start")
                heard: list[dict[str, Any]] = []

                async def told() -> bool:  # the start was heard and sent meanwhile
                    return any(s["game_id"] for s in await _tables(early, heard))

                await until(told, timeout=10)
            return row

        monkeypatch.setattr(store, "get_table", row_on_its_way)
        try:
            await gateway.subscriptions.on_subscribe(conn, ws.Subscribe(table_id=table_id))
            assert not slowed
            stale = len(await _tables(conn, seen))
            assert seen[-1]["game_id"] is None  # the row read before the start, sent first

            async def started_last() -> bool:
                tables = await _tables(conn, seen)
                return len(tables) > stale and bool(tables[-1]["game_id"])

            await until(started_last, timeout=10)
        finally:
            await gateway.stop()
    await host.aclose()


async def test_a_socket_refused_a_table_hears_no_change_announced_during_its_read(
        platform: Platform, database_url: str, nats_url: str, nats_prefix: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Eve names a private table's id without its code: a change of the table sent to its
    followers while her read is on its way does not reach her, and neither does a later
    one."""
    host = await Player.guest(platform.a.url, "Host")
    t = await host.ok("POST", "/v1/tables", {"rules": "quick", "private": True,
                                              "seat": None})
    table_id = t["table_id"]
    await host.ok("POST", f"/v1/tables/{table_id}/bots", {"level": "basic"})
    await host.ok("POST", f"/v1/tables/{table_id}/start")
    settings = LobbySettings(database_url="", nats_url="")
    async with inprocess.gateway(database_url, nats_url, f"{nats_prefix}e2e", "refused",
                                 settings) as gateway:
        await gateway.start()
        hosts = gateway.conns.open(Claims(host.player_id, "Host", True, 0))
        await gateway.subscriptions.on_subscribe(
            hosts, ws.Subscribe(table_id=table_id, spectate=True))
        eve = gateway.conns.open(Claims("eve", "Eve", True, 0))
        read = store.get_table
        slowed = [True]

        async def told_the_host() -> None:
            await gateway.broadcasts.table_changed(table_id)
            heard: list[dict[str, Any]] = []

            async def told() -> bool:
                return bool(await _tables(hosts, heard))

            await until(told, timeout=10)

        async def row_on_its_way(pool: Any, wanted: str) -> store.TableRow | None:
            row = await read(pool, wanted)
            if slowed and wanted == table_id:
                slowed.clear()
                await told_the_host()
            return row

        monkeypatch.setattr(store, "get_table", row_on_its_way)
        try:
            with pytest.raises(LobbyError) as refused:
                await gateway.subscriptions.on_subscribe(
                    eve, ws.Subscribe(table_id=table_id, spectate=True))
            assert refused.value.code == "room_code_required"
            assert not slowed
            await told_the_host()
            assert await _tables(eve, []) == []
        finally:
            await gateway.stop()
    await host.aclose()
