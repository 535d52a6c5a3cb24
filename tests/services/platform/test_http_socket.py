"""The services' listening socket: what every HTTP and WebSocket connection inherits."""

from __future__ import annotations

import asyncio
import socket

from services.platform.runtime import bind


async def test_accepted_connections_send_small_frames_at_once() -> None:
    """TCP_NODELAY on every accepted socket: an event frame right after an ack must not
    wait for the client's delayed ACK (about 40 ms a frame otherwise)."""
    listening = bind("127.0.0.1", 0)
    nodelay: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    async def accepted(_: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nodelay.set_result(writer.get_extra_info("socket").getsockopt(
            socket.IPPROTO_TCP, socket.TCP_NODELAY))
        writer.close()

    server = await asyncio.start_server(accepted, sock=listening)
    try:
        _, writer = await asyncio.open_connection(*listening.getsockname())
        assert await asyncio.wait_for(nodelay, 5) == 1
        writer.close()
    finally:
        server.close()
        await server.wait_closed()
