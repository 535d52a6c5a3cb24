"""Every copy of every service restarted one at a time while people play: what they
noticed. Shared by the suite's short version (``test_rolling.py``) and
``python -m tests.bench rolling_bench``.

A deployment here is two lobby copies, two game workers, the ratings service and the
tournament service, each its own process; a copy restarted comes back on the same
port, as a pod behind its service would. People play one-hand games against three
bots at a person's pace, each through ``spades_client`` given both lobby copies'
addresses (a load balancer's part). A command counts as failed only when its client
gave it up: one sent again under its own id after ``unavailable`` or a moved socket,
and then answered, is a command that worked, as the protocol documents.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from engine import replay
from services.platform.db import create_pool
from services.platform.events import game_registry
from services.platform.eventstore import EventStore
from spades_client import CommandRejected, GameConnection, first_legal
from tests.services.lobby.harness import ROOT, Player, Service, lobby_env, start

ONE_HAND = {"preset": "classic", "target": None, "max_hands": 1}
ORDER = ("lobby", "game", "ratings", "tournaments")
SHAPE = (("game", 2), ("ratings", 1), ("tournaments", 1), ("lobby", 2))


@dataclass
class Deployment:
    copies: dict[str, list[Service]]
    env: dict[str, str]
    logs: Path
    restarts: int = 0

    @property
    def ws_urls(self) -> list[str]:
        return [s.ws_url for s in self.copies["lobby"]]

    def restart(self, name: str, i: int, root: Path = ROOT) -> float:
        """SIGTERM the copy, wait for it to end, start the new one on its port (from the
        source tree ``root``: another version's, for an upgrade); seconds."""
        began = time.monotonic()
        old = self.copies[name][i]
        old.stop()
        self.restarts += 1
        self.copies[name][i] = start(name, self.logs / f"{name}-{i}-r{self.restarts}.log",
                                     None, root, SPADES_HTTP_PORT=str(old.port), **self.env)
        return time.monotonic() - began

    def stop(self) -> None:
        for name in reversed(ORDER):
            for svc in self.copies.get(name, []):
                svc.stop()


@contextlib.contextmanager
def deployment(logs: Path, database_url: str, nats_url: str, prefix: str,
               drain_seconds: float = 0.2,
               shape: tuple[tuple[str, int], ...] = SHAPE,
               roots: Mapping[tuple[str, int], Path] | None = None) -> Iterator[Deployment]:
    """The copies of each service ``shape`` names, started in its order; ``roots`` gives
    a copy (name, i) another version's source tree."""
    env = lobby_env(database_url, nats_url, prefix, SPADES_BOT_THINK_MS="0",
                    SPADES_DRAIN_SECONDS=str(drain_seconds),
                    SPADES_WS_FRAMES_PER_SECOND="200", SPADES_WS_FRAME_BURST="400")
    d = Deployment({}, env, logs)
    try:
        for name, n in shape:
            d.copies[name] = [start(name, logs / f"{name}-{i}.log", None,
                                    (roots or {}).get((name, i), ROOT), **env)
                              for i in range(n)]
        yield d
    finally:
        d.stop()


@dataclass
class Tally:
    """What the people noticed: each command's latency (when sent, how long), what failed."""

    latencies: list[tuple[float, float]] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    games: list[str] = field(default_factory=list)
    unfinished: list[str] = field(default_factory=list)
    resumes: int = 0
    retries: int = 0

    def p99(self, since: float = 0.0, until: float = float("inf")) -> float:
        got = sorted(s for at, s in self.latencies if since <= at < until)
        return got[int(len(got) * 0.99)] if got else 0.0


async def person(d: Deployment, name: str, pace: tuple[float, float], until: asyncio.Event,
                 tally: Tally, seed: int) -> None:
    """One person: a one-hand game against three bots, again and again until ``until``
    is set, thinking ``pace`` seconds before each move."""
    rng = random.Random(seed)
    player = await Player.guest(d.copies["lobby"][seed % 2].url, name)
    try:
        while not until.is_set():
            await _one_game(d, player, pace, tally, rng)
    finally:
        with contextlib.suppress(Exception):
            await player.aclose()


async def _one_game(d: Deployment, player: Player, pace: tuple[float, float], tally: Tally,
                    rng: random.Random) -> None:
    t = await _http(d, player, "POST", "/v1/tables", {"rules": ONE_HAND, "private": True})
    t = await _http(d, player, "POST", f"/v1/tables/{t['table_id']}/start", None)
    game_id = str(t["game_id"])
    tally.games.append(game_id)
    game = await _opened(d, player, game_id, rng.randrange(2))
    try:
        async with asyncio.timeout(600):
            while game.ended is None:
                if game.my_turn() and (move := first_legal(game.turn)) is not None:
                    await asyncio.sleep(rng.uniform(*pace))
                    sent = time.monotonic()
                    try:
                        await game.command(move, timeout=120)
                    except CommandRejected as exc:
                        tally.failed.append(f"{game_id}: {exc.error.code}")
                    tally.latencies.append((sent, time.monotonic() - sent))
                    continue
                await game.next()
    except TimeoutError:
        tally.unfinished.append(game_id)
    finally:
        tally.resumes += game.resumes
        tally.retries += game.retries
        await game.close()


async def _opened(d: Deployment, player: Player, game_id: str, first: int) -> GameConnection:
    """The game followed through the first lobby copy that takes the socket."""
    for attempt in range(100):
        urls = d.ws_urls
        k = (first + attempt) % len(urls)
        game = GameConnection(urls[k:] + urls[:k], player.token, game_id, reconnects=20,
                              max_retries=200)
        with contextlib.suppress(OSError, ConnectionClosed, InvalidHandshake, TimeoutError):
            await game.open()
            return game
        await asyncio.sleep(0.1)
    raise AssertionError(f"no lobby copy took a socket for {game_id}")


async def _http(d: Deployment, player: Player, method: str, path: str,
                body: object) -> dict[str, object]:
    """An HTTP call through whichever lobby copy answers, as behind a load balancer."""
    for attempt in range(100):
        base = d.copies["lobby"][attempt % 2].url
        with contextlib.suppress(httpx.TransportError):
            r = await player.http.request(method, base + path, json=body)
            if r.status_code < 300:
                return dict(r.json())
            assert r.status_code == 503, (method, path, r.status_code, r.text)
        await asyncio.sleep(0.1)
    raise AssertionError(f"{method} {path}: no lobby copy answered")


async def roll(d: Deployment, gap: float) -> dict[str, float]:
    """Every copy of every service restarted one at a time, ``gap`` seconds apart; the
    seconds each took (stop to ready)."""
    took: dict[str, float] = {}
    for name in ORDER:
        for i in range(len(d.copies[name])):
            took[f"{name}-{i}"] = await asyncio.to_thread(d.restart, name, i)
            await asyncio.sleep(gap)
    return took


async def unverified(database_url: str, game_ids: list[str]) -> list[str]:
    """The games whose stored events do not replay to an ended game (lost or broken)."""
    pool = await create_pool(database_url, "game")
    bad = []
    try:
        store = EventStore(pool, game_registry())
        for game_id in game_ids:
            events = [r.event for r in await store.read(game_id)]
            if (not events or type(events[-1]).__name__ != "GameEnded"
                    or replay.verify(events) is not None):  # type: ignore[arg-type]
                bad.append(game_id)
    finally:
        await pool.close()
    return bad
