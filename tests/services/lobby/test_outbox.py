"""A socket's outbox: frames out in order to one writer, bounded, the end marker last."""

from __future__ import annotations

import asyncio

import pytest

from services.lobby.accounts.auth import Claims
from services.lobby.base.settings import LobbySettings
from services.lobby.edge.connections import Conn
from services.lobby.edge.outbox import Outbox


async def test_the_writer_waits_for_a_frame_and_gets_all_that_wait_in_order() -> None:
    box = Outbox(4)
    writer = asyncio.create_task(box.get_all())
    await asyncio.sleep(0)
    assert not writer.done()  # nothing to write yet
    box.put_nowait("a")
    box.put_nowait("b")
    assert await writer == ["a", "b"]
    assert box.empty() and box.qsize() == 0
    box.put_nowait("c")
    box.put_nowait(None)
    assert await box.get_all() == ["c", None]
    with pytest.raises(asyncio.QueueEmpty):
        box.get_nowait()


async def test_a_cancelled_writer_leaves_the_outbox_usable() -> None:
    box = Outbox(4)
    writer = asyncio.create_task(box.get_all())
    await asyncio.sleep(0)
    writer.cancel()
    with pytest.raises(asyncio.CancelledError):
        await writer
    box.put_nowait("a")
    assert await box.get_all() == ["a"]


async def test_a_full_outbox_refuses_and_its_socket_is_dropped_with_the_end_marker() -> None:
    box = Outbox(2)
    box.put_nowait("a")
    box.put_nowait("b")
    assert box.full()
    with pytest.raises(asyncio.QueueFull):
        box.put_nowait("c")
    conn = Conn(Claims("p1", "p", False, 0), LobbySettings(database_url="", nats_url="",
                                                          ws_outbox_frames=16))
    for i in range(16):
        conn.send_raw(str(i))
    conn.send_raw("one too many")  # a client that does not read is dropped
    assert conn.closed
    frames = [conn.outbox.get_nowait() for _ in range(conn.outbox.qsize())]
    assert frames[-1] is None and "one too many" not in frames
