"""What the operator tests share: an operator account, and one finished all-bot game."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from dataclasses import dataclass

from tests.e2e.conftest import Platform
from tests.services.lobby.harness import ROOT, Player

PASSWORD = "a long operator password"


@dataclass(frozen=True)
class Finished:
    game_id: str
    table_id: str
    host: Player


_game: Finished | None = None
_lock = asyncio.Lock()


def grant(database_url: str, name: str, action: str = "grant") -> subprocess.CompletedProcess[str]:
    """The operator role, given the way a deployment gives it: ``spades operator grant``."""
    return subprocess.run([sys.executable, "-m", "services.cli", "operator", action, name],
                          env={**os.environ, "DATABASE_URL": database_url,
                               "PYTHONPATH": str(ROOT)},
                          cwd=ROOT, capture_output=True, text=True, timeout=30)


async def registered(base: str, name: str) -> Player:
    return await Player.registered(base, name, PASSWORD)


async def operator(platform: Platform, database_url: str, name: str) -> Player:
    """A registered account made an operator, signed in again so its token says so."""
    who = await registered(platform.a.url, name)
    done = grant(database_url, name)
    assert done.returncode == 0, done.stderr
    r = await who.http.post("/v1/auth/login", json={"name": name, "password": PASSWORD})
    assert r.status_code == 200 and r.json()["role"] == "operator", r.text
    who.token = r.json()["token"]
    who.http.headers["authorization"] = f"Bearer {who.token}"
    return who


async def finished_game(platform: Platform, op: Player) -> Finished:
    """One quick match of four bots, played out; the games projection has seen it end."""
    global _game
    async with _lock:
        if _game is None:
            host = await Player.guest(platform.b.url, "Replay host")
            t = await host.ok("POST", "/v1/tables", {"rules": "quick", "seat": None})
            t = await host.ok("POST", f"/v1/tables/{t['table_id']}/start")
            deadline = time.monotonic() + 60
            while True:
                summary = await host.ok("GET", f"/v1/games/{t['game_id']}")
                found = await op.ok("GET", f"/v1/admin/games?table={t['table_id']}")
                if summary["state"] == "over" and found["games"] and \
                        found["games"][0]["ended_at_ms"] is not None:
                    break
                assert time.monotonic() < deadline, (summary, found)
                await asyncio.sleep(0.2)
            _game = Finished(t["game_id"], t["table_id"], host)
    return _game
