"""The services' WebSocket protocol reads a socket without pausing while the app keeps
up, stops reading when the app falls behind, and loses or reorders nothing."""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import pytest
import uvicorn
import websockets

from services.platform.wsprotocol import BEHIND, WebSocketProtocol


@pytest.mark.timeout(60)
async def test_reading_pauses_only_when_the_app_falls_behind() -> None:
    go, got = asyncio.Event(), []

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "websocket":
            return
        await receive()  # websocket.connect
        await send({"type": "websocket.accept"})
        while True:
            await go.wait()  # the app takes nothing until the test says so
            message = await receive()
            if message["type"] == "websocket.disconnect":
                return
            got.append(message["text"])
            await send({"type": "websocket.send", "text": "ok"})

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, ws=WebSocketProtocol, log_config=None,
                                           lifespan="off"))
    serving = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        while not server.started:
            await asyncio.sleep(0.01)
        async with websockets.connect(f"ws://127.0.0.1:{port}/", compression=None) as ws:
            (proto,) = server.server_state.connections
            assert isinstance(proto, WebSocketProtocol)
            await ws.send("0")
            while proto.queue.qsize() < 1:
                await asyncio.sleep(0.005)
            assert not proto.read_paused and proto.transport.is_reading()  # one: read on
            big = "x" * 4000

            async def flood() -> None:  # blocks once the server reads no more
                for i in range(1, 200):
                    await ws.send(f"{i} {big}")

            sending = asyncio.create_task(flood())
            for _ in range(200):
                if proto.read_paused:
                    break
                await asyncio.sleep(0.01)
            assert proto.read_paused and not proto.transport.is_reading()
            assert BEHIND <= proto.queue.qsize() < 200  # bounded: the rest waits unread
            go.set()
            for _ in range(200):
                assert await ws.recv() == "ok"
            await sending
            assert [g.split(" ")[0] for g in got] == [str(i) for i in range(200)]
            assert not proto.read_paused and proto.transport.is_reading()
    finally:
        go.set()
        server.should_exit = True
        await serving
