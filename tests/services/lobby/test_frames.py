"""The gateway's frame table: every client frame has exactly one handler."""

from __future__ import annotations

from typing import Any

import pytest

from schemas import ws
from services.lobby.edge.connections import Conn
from services.lobby.edge.frames import FrameTable, client_frame_types


async def _noop(conn: Conn, frame: Any) -> None:
    pass


def test_a_frame_type_without_a_handler_is_refused_at_start() -> None:
    handlers = {kind: _noop for kind in client_frame_types() if kind is not ws.MuteBots}
    with pytest.raises(ValueError, match="no handler for MuteBots"):
        FrameTable(handlers)


def test_two_handlers_for_one_frame_type_are_refused() -> None:
    with pytest.raises(ValueError, match="two handlers for Ping"):
        FrameTable({kind: _noop for kind in client_frame_types()}, {ws.Ping: _noop})


async def test_a_frame_goes_to_the_handler_of_its_type() -> None:
    seen: list[tuple[str, object]] = []

    def recorder(name: str) -> Any:
        async def record(conn: Conn, frame: Any) -> None:
            seen.append((name, frame))
        return record

    table = FrameTable({kind: recorder(kind.__name__) for kind in client_frame_types()})
    ping, play = ws.Ping(nonce="n"), ws.Play(command_id="c", game_id="g", seat=1, card="AS")
    for frame in (ping, play):
        await table.handle(None, frame)  # type: ignore[arg-type]
    assert seen == [("Ping", ping), ("Play", play)]
