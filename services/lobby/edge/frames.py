"""Client frames to their handlers: one table from frame type to handler.

Each concern of the gateway (following, commands, chat, the table feed, ...)
offers its handlers as ``{frame type: handler}``; the gateway puts them in one
table. A new frame is a new entry, never another branch. A frame type without
a handler is refused at start-up, not when a client first sends it.
"""

from __future__ import annotations

import typing
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from schemas import ws
from services.lobby.edge.connections import Conn

Handler = Callable[[Conn, Any], Awaitable[None]]


def client_frame_types() -> set[type[ws.ClientFrame]]:
    return set(typing.get_args(ws.ClientMessage))


class FrameTable:
    def __init__(self, *parts: Mapping[type[ws.ClientFrame], Handler]) -> None:
        self.handlers: dict[type[ws.ClientFrame], Handler] = {}
        for part in parts:
            for kind, handler in part.items():
                if kind in self.handlers:
                    raise ValueError(f"two handlers for {kind.__name__}")
                self.handlers[kind] = handler
        missing = client_frame_types() - self.handlers.keys()
        if missing:
            raise ValueError("no handler for " + ", ".join(sorted(k.__name__ for k in missing)))

    async def handle(self, conn: Conn, frame: ws.ClientFrame) -> None:
        await self.handlers[type(frame)](conn, frame)
