"""The table feed's batching: a table's change heard while the last batch is still being
sent is sent right after it, without waiting for yet another change (a table's game
started is often its last change for a while)."""

from __future__ import annotations

import asyncio

from schemas.gamebus import TableChanged
from services.lobby.edge.tablefeed import TableFeed


async def test_a_change_heard_while_a_batch_is_sent_is_sent_after_it() -> None:
    feed = TableFeed.__new__(TableFeed)  # only the batching: no store, no sockets
    feed._note, feed._changed = None, set()
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
