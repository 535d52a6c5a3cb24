"""Real lobby (and game) processes for tests, and a small client of the public API.

Services run as their own processes (``spades serve NAME``) against the test
session's Postgres and NATS; their logs go to files the tests can scan.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect

from services.platform import servers

ROOT = Path(__file__).resolve().parents[3]
SECRET = "test-secret-for-signing-tokens-0123456789"


@dataclass
class Service:
    name: str
    proc: subprocess.Popen[bytes]
    port: int
    log: Path
    wrapped: bool = False  # run under another program (a profiler), which wants SIGINT

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/v1/ws"

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT if self.wrapped else signal.SIGTERM)
            try:
                self.proc.wait(30 if self.wrapped else 15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def start(name: str, log: Path, wrap: list[str] | None = None, root: Path = ROOT, /,
          **env: str) -> Service:
    """Service ``name`` as its own process (under ``wrap`` if given), once it is ready;
    its instance id is the log file's name. ``root``: the source tree it runs (another
    version's, in the compatibility tests). The first four are positional only, so
    that no setting in ``env`` can be taken for one of them."""
    port = int(env.get("SPADES_HTTP_PORT") or servers.free_port())  # a restart keeps its port
    inherited = {k: v for k, v in os.environ.items() if k != "SPADES_FAULT"}  # only if asked
    full = {**inherited, "PYTHONPATH": str(root), "SPADES_HTTP_PORT": str(port),
            "SPADES_HTTP_HOST": "127.0.0.1", "SPADES_INSTANCE_ID": log.stem, **env}
    with open(log, "wb") as out:
        proc = subprocess.Popen([*(wrap or []), sys.executable, "-m", "services.cli", "serve",
                                 name], env=full, cwd=root, stdout=out, stderr=subprocess.STDOUT)
    svc = Service(name, proc, port, log, wrapped=bool(wrap))
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"{name} exited:\n{log.read_text()[-3000:]}")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"{svc.url}/readyz", timeout=1).status_code == 200:
                return svc
        time.sleep(0.1)
    svc.stop()
    raise AssertionError(f"{name} never became ready:\n{log.read_text()[-3000:]}")


def lobby_env(database_url: str, nats_url: str, prefix: str, **extra: str) -> dict[str, str]:
    # Every test client signs in from this host: limits far above what a test run needs
    # (the throttling tests start a lobby with small ones). A ratings service weighs every
    # rated game for fair play: with few sampled deals, a test's games cost little CPU.
    return {"DATABASE_URL": database_url, "NATS_URL": nats_url, "SPADES_NATS_PREFIX": prefix,
            "SPADES_TOKEN_SECRET": SECRET, "SPADES_SIGNUPS_PER_ADDRESS": "100000/minute",
            "SPADES_LOGIN_FAILURES_PER_ADDRESS": "100000/minute", "SPADES_FAIRPLAY_DEALS": "2",
            **extra}


class Socket:
    """A WebSocket client that keeps every frame it received, for later inspection."""

    def __init__(self, conn: ClientConnection) -> None:
        self.conn = conn
        self.frames: list[dict[str, Any]] = []
        self._next = 0
        self._counter = 0

    async def send(self, frame: dict[str, Any] | str | bytes) -> None:
        await self.conn.send(frame if isinstance(frame, str | bytes) else json.dumps(frame))

    def command_id(self) -> str:
        self._counter += 1
        return f"c{self._counter}"

    async def recv(self, timeout: float = 5.0) -> dict[str, Any]:
        if self._next < len(self.frames):
            self._next += 1
            return self.frames[self._next - 1]
        raw = await asyncio.wait_for(self.conn.recv(), timeout)
        frame = json.loads(raw)
        self.frames.append(frame)
        self._next += 1
        return frame

    async def until(self, pred: Callable[[dict[str, Any]], bool],
                    timeout: float = 10.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no matching frame; last: {self.frames[-5:]}")
            frame = await self.recv(left)
            if pred(frame):
                return frame

    async def of_type(self, kind: str, timeout: float = 10.0) -> dict[str, Any]:
        return await self.until(lambda f: f["type"] == kind, timeout)

    async def close(self) -> None:
        await self.conn.close()


@dataclass
class Player:
    """A signed-in player talking to one lobby over HTTP."""

    base: str
    token: str
    player_id: str
    name: str
    http: httpx.AsyncClient = field(repr=False)

    @classmethod
    async def guest(cls, base: str, name: str) -> Player:
        http = httpx.AsyncClient(base_url=base, timeout=10)
        r = await http.post("/v1/auth/guest", json={"name": name})
        assert r.status_code == 201, r.text
        body = r.json()
        http.headers["authorization"] = f"Bearer {body['token']}"
        return cls(base, body["token"], body["player_id"], name, http)

    @classmethod
    async def registered(cls, base: str, name: str, password: str) -> Player:
        http = httpx.AsyncClient(base_url=base, timeout=10)
        r = await http.post("/v1/auth/register", json={"name": name, "password": password})
        assert r.status_code == 201, r.text
        body = r.json()
        http.headers["authorization"] = f"Bearer {body['token']}"
        return cls(base, body["token"], body["player_id"], name, http)

    async def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        r = await self.http.request(method, path, json=body)
        return r.status_code, r.json() if r.content else None

    async def ok(self, method: str, path: str, body: Any = None) -> Any:
        status, data = await self.call(method, path, body)
        assert status < 300, (status, data)
        return data

    async def socket(self, ws_url: str, origin: str | None = None) -> Socket:
        conn = await connect(f"{ws_url}?token={self.token}", origin=origin,  # type: ignore[arg-type]
                             max_size=2**22)
        sock = Socket(conn)
        welcome = await sock.recv()
        assert welcome["type"] == "welcome", welcome
        return sock

    async def aclose(self) -> None:
        await self.http.aclose()
