"""The table feed's batching: a table's change heard while the last batch is still being
sent is sent right after it, without waiting for yet another change (a table's game
started is often its last change for a while)."""

from __future__ import annotations

import asyncio
from typing import Any, cast

from schemas.gamebus import TableChanged
from schemas.subjects import Names
from services.lobby.base.settings import LobbySettings
from services.lobby.edge.connections import Connections
from services.lobby.edge.tablefeed import TableFeed


async def test_a_change_heard_while_a_batch_is_sent_is_sent_after_it() -> None:
    # Only the batching: no store, no bus, no game followed; what a batch sends is kept.
    feed = TableFeed(cast(Any, None), cast(Any, None), Names("feed"),
                     Connections(LobbySettings(database_url="", nats_url="")), cast(Any, []))
    sent: list[set[str]] = []
    release = asyncio.Event()

    async def send(changed: set[str]) -> None:
        sent.append(changed)
        if len(sent) == 1:
            await release.wait()  # the first batch's reads are slow

    feed._send = send  # type: ignore[method-assign]
    await feed._on_table_changed(TableChanged(table_id="t1"))
    async with asyncio.timeout(5):
        while not sent:
            await asyncio.sleep(0.01)
    await feed._on_table_changed(TableChanged(table_id="t2"))  # while t1's batch is out
    release.set()
    async with asyncio.timeout(5):
        while len(sent) < 2:
            await asyncio.sleep(0.01)
    assert sent == [{"t1"}, {"t2"}]
