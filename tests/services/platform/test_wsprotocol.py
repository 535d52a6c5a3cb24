"""The services' WebSocket protocol reads a socket without pausing while the app keeps
up, stops reading when the app falls behind, and loses or reorders nothing; it sends
several messages at once."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator
from typing import Any

import pytest
import uvicorn
import websockets
from uvicorn.protocols.utils import ClientDisconnected

from services.platform.wsprotocol import BEHIND, RECEIVE, SEND_TEXTS, WRITE_TEXTS, WebSocketProtocol


@contextlib.asynccontextmanager
async def _serving(app: Any) -> AsyncIterator[tuple[uvicorn.Server, int]]:
    """``app`` served by uvicorn with the services' protocol on a port of its own."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, ws=WebSocketProtocol, log_config=None,
                                           lifespan="off"))
    serving = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        while not server.started:
            await asyncio.sleep(0.01)
        yield server, sock.getsockname()[1]
    finally:
        server.should_exit = True
        await serving


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

    async with _serving(app) as (server, port), contextlib.AsyncExitStack() as stack:
        stack.callback(go.set)  # the app never waits past the test
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


@pytest.mark.timeout(60)
async def test_the_app_sends_several_messages_at_once_and_receives_unwrapped() -> None:
    """``send_texts`` delivers its messages in order as separate messages, and says a
    socket the client closed is gone; ``write_texts`` does the same at once, saying
    whether it could; ``RECEIVE`` is the protocol's own receive."""
    gone = asyncio.get_running_loop().create_future()

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "websocket":
            return
        send_texts, own_receive = scope["extensions"][SEND_TEXTS], scope["extensions"][RECEIVE]
        write_texts = scope["extensions"][WRITE_TEXTS]
        assert (await own_receive())["type"] == "websocket.connect"
        assert not write_texts(["too soon"])  # not accepted yet
        await send({"type": "websocket.accept"})
        message = await own_receive()
        await send_texts([message["text"] + "1", "2"])
        assert write_texts(["é" * 3])
        assert (await own_receive())["type"] == "websocket.disconnect"
        assert not write_texts(["after"])
        try:
            await send_texts(["after"])
        except ClientDisconnected:
            gone.set_result(True)

    async with _serving(app) as (_, port):
        async with websockets.connect(f"ws://127.0.0.1:{port}/") as ws:
            await ws.send("x")
            assert [await ws.recv() for _ in range(3)] == ["x1", "2", "ééé"]
        assert await asyncio.wait_for(gone, 10)
