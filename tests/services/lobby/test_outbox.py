"""A socket's outbox: frames out in order to one writer, bounded, the end marker last;
written straight to the socket after a delivery while its writer sleeps, when it can be."""

from __future__ import annotations

import asyncio

import pytest

from services.lobby.accounts.auth import Claims
from services.lobby.base.settings import LobbySettings
from services.lobby.edge.connections import Conn
from services.lobby.edge.outbox import Flush, Outbox


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


class _Socket:
    """A socket's direct write: takes frames while ``open``, else refuses them."""

    def __init__(self) -> None:
        self.written: list[list[str]] = []
        self.open = True

    def __call__(self, frames: object) -> bool:
        if self.open:
            self.written.append(list(frames))  # type: ignore[call-overload]
        return self.open


async def _sleeping_writer(box: Outbox) -> asyncio.Task[list[str | None]]:
    writer = asyncio.create_task(box.get_all())
    await asyncio.sleep(0)
    return writer


async def test_a_deliverys_frames_go_straight_to_each_socket_in_one_write() -> None:
    flush, sockets = Flush(), [_Socket(), _Socket()]
    boxes = [Outbox(8, flush), Outbox(8, flush)]
    for box, socket in zip(boxes, sockets, strict=True):
        box.direct = socket
    writers = [await _sleeping_writer(box) for box in boxes]
    for frame in ("e1", "e2"):  # one delivery: two events, to both sockets
        for box in boxes:
            box.put_nowait(frame)
    await asyncio.sleep(0)
    assert [s.written for s in sockets] == [[["e1", "e2"]], [["e1", "e2"]]]
    assert all(box.empty() for box in boxes)
    assert not any(w.done() for w in writers)  # nobody woken
    boxes[0].put_nowait("e3")
    await asyncio.sleep(0)
    assert sockets[0].written[-1] == ["e3"]
    for w in writers:
        w.cancel()


async def test_a_socket_that_cannot_take_frames_now_and_the_end_go_to_the_writer() -> None:
    flush, socket = Flush(), _Socket()
    box = Outbox(8, flush)
    box.direct = socket
    socket.open = False  # held back by its client's reading, say
    writer = await _sleeping_writer(box)
    box.put_nowait("a")
    box.put_nowait("b")
    assert await writer == ["a", "b"]  # the writer waits for the socket itself
    socket.open = True
    writer = await _sleeping_writer(box)
    box.put_nowait("c")
    box.put_nowait(None)  # the end: the writer closes the socket after the frames
    assert await writer == ["c", None] and socket.written == []


async def test_frames_that_come_while_the_writer_is_awake_are_left_to_it() -> None:
    flush, socket = Flush(), _Socket()
    box = Outbox(8, flush)
    box.direct = socket
    box.put_nowait("a")  # no writer asleep yet: the frame waits for it
    await asyncio.sleep(0)
    assert socket.written == [] and await box.get_all() == ["a"]
