"""Game workers on real Postgres and NATS: in this process, or as `spades serve game` processes.

Every test gets its own database (a clone of the migrated template) and its
own subject prefix, so no worker ever adopts another test's games.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import asyncpg
import msgspec
import nats
import nats.errors
import pytest
from nats.aio.client import Client

from engine.evolve import fold
from engine.state import GameState
from schemas import commands as cmd
from schemas.events import Event
from schemas.gamebus import CreateGame, GameReply, GameRequest
from schemas.rules import Rules
from schemas.subjects import Names
from services.game.clock import Clock, ManualClock
from services.game.settings import GameSettings
from services.game.store import GameStore
from services.game.transport import GameTransport
from services.game.worker import GameWorker
from services.platform import bus, servers
from services.platform.busclient import BusClient
from services.platform.events import game_registry
from services.platform.eventstore import EventStore
from services.platform.eventstore.outbox import OutboxRelay, Publisher

ROOT = Path(__file__).resolve().parents[3]
_seq = itertools.count()
REGISTRY = game_registry()


@pytest.fixture
async def game_db(make_database: Callable[[], Awaitable[str]]) -> str:
    return await make_database()


@pytest.fixture
def prefix(nats_prefix: str) -> str:
    return f"{nats_prefix}g{next(_seq)}"


@pytest.fixture
async def pool(game_db: str) -> AsyncIterator[asyncpg.Pool]:
    p = await asyncpg.create_pool(game_db, min_size=1, max_size=20,
                                  server_settings={"search_path": "game,public"})
    assert p is not None
    yield p
    await p.close()


class Harness:
    """Game workers inside the test process, each with its transport on one connection."""

    def __init__(self, pool: asyncpg.Pool, nc: Client, names: Names) -> None:
        self.pool, self.nc, self.names = pool, nc, names
        self.client = BusClient(nc)
        self.js = self.client.js
        self.relay = OutboxRelay(pool, self.client, names.game_event, poll_seconds=0.1,
                                 sweep_after=0.5)
        self.events = EventStore(pool, REGISTRY,
                                 publish=Publisher(self.client, names.game_event, self.relay))
        self.store = GameStore(pool, self.events)
        self.workers: list[tuple[GameWorker, GameTransport, Any]] = []

    async def start(self) -> None:
        await bus.ensure_stream(self.client, bus.StreamSpec(
            self.names.game_events_stream, (self.names.game_events_all,), duplicate_window=120))
        await self.relay.start()

    async def worker(self, clock: Clock | None = None, owner: str = "",
                     **config: Any) -> GameWorker:
        owner = owner or f"w{len(self.workers) + 1}"
        settings = GameSettings(**{
            "database_url": "", "nats_url": "", "instance_id": owner, "lease_seconds": 5.0,
            "heartbeat_seconds": 0.2, "bot_think_ms": 0, "linger_seconds": 5.0, **config})
        transport = GameTransport(BusClient(self.nc), self.names, owner)
        worker = GameWorker(self.store, settings, clock or ManualClock(), owner, transport)
        await transport.start(worker)
        await worker.start()
        service = await bus.serve(self.nc, service="game", version="0.1.0", instance=owner,
                                  group=self.names.service_group("game"),
                                  endpoints=transport.endpoints(worker))
        self.workers.append((worker, transport, service))
        return worker

    async def stop(self) -> None:
        for worker, transport, service in self.workers:
            await service.stop()
            await transport.stop_listening()
            await worker.stop()
            await transport.finish()
        await self.relay.stop()

    async def create(self, game_id: str, rules: Rules, players: tuple[str, str, str, str],
                     **extra: Any) -> GameReply:
        return await bus.request(self.nc, self.names.game_create,
                                 CreateGame(game_id=game_id, command_id=f"create-{game_id}",
                                            rules=rules, players=players, **extra), GameReply)

    async def send(self, game_id: str, command: cmd.Command, command_id: str,
                   player_id: str = "p") -> GameReply:
        assert isinstance(command, cmd.GameCommand)  # a bot's choice is typed as any command
        return await bus.request(self.nc, self.names.game_command(game_id),
                                 GameRequest(game_id=game_id, command_id=command_id,
                                             command=command, player_id=player_id), GameReply)

    async def stored(self, game_id: str) -> list[Event]:
        return [r.event for r in await self.events.read(game_id)]  # type: ignore[misc]

    async def state(self, game_id: str) -> GameState:
        return fold(await self.stored(game_id))


@pytest.fixture
async def harness(pool: asyncpg.Pool, nc: Client, prefix: str) -> AsyncIterator[Harness]:
    h = Harness(pool, nc, Names(prefix))
    await h.start()
    yield h
    await h.stop()


async def ended_on_jetstream(js: Any, names: Names, game_id: str) -> Event | None:
    """The game's GameEnded as JetStream holds it, or None."""
    from nats.js.errors import NotFoundError

    from schemas.bus import EventEnvelope
    try:
        msg = await js.get_last_msg(names.game_events_stream,
                                    names.game_event(game_id, "GameEnded"))
    except NotFoundError:
        return None
    env = msgspec.msgpack.decode(msg.data, type=EventEnvelope)
    return REGISTRY.decode(env.type, env.schema_version, env.body)  # type: ignore[return-value]


# --- workers as processes ------------------------------------------------------------


class WorkerProcess:
    def __init__(self, name: str, proc: subprocess.Popen[bytes], log: Path, port: int) -> None:
        self.name, self.proc, self.log, self.port = name, proc, log, port

    def metrics(self) -> str:
        url = f"http://127.0.0.1:{self.port}/metrics"
        with urllib.request.urlopen(url, timeout=5) as answer:
            return str(answer.read().decode())

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def signal(self, sig: int) -> None:
        self.proc.send_signal(sig)

    def stop(self) -> None:
        if self.proc.poll() is None:
            with_cont = self.proc.pid
            os.kill(with_cont, signal.SIGCONT)
            self.proc.kill()
        self.proc.wait(10)


@pytest.fixture
def spawn(tmp_path: Path, game_db: str, nats_url: str,
          prefix: str) -> Iterator[Callable[..., WorkerProcess]]:
    """Start `spades serve game` (or another service) processes; every one is killed at
    the end of the test."""
    started: list[WorkerProcess] = []

    def start(name: str, service: str = "game", nats: str = "", **settings: str
              ) -> WorkerProcess:
        """``nats``: another NATS than the session's (a cluster's URLs, say)."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("SPADES_")}
        port = servers.free_port()
        env.update({"DATABASE_URL": game_db, "NATS_URL": nats or nats_url,
                    "PYTHONPATH": str(ROOT),
                    "SPADES_NATS_PREFIX": prefix, "SPADES_INSTANCE_ID": name,
                    "SPADES_HTTP_PORT": str(port), "SPADES_HTTP_HOST": "127.0.0.1",
                    "SPADES_BOT_THINK_MS": "0", "SPADES_LEASE_SECONDS": "1.5",
                    "SPADES_HEARTBEAT_SECONDS": "0.25", "SPADES_SHUTDOWN_GRACE_SECONDS": "5"})
        env.update({f"SPADES_{k.upper()}": v for k, v in settings.items()})
        log = tmp_path / f"{name}.log"
        with open(log, "wb") as out:
            proc = subprocess.Popen([sys.executable, "-m", "services.cli", "serve", service],
                                    env=env, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
        wp = WorkerProcess(name, proc, log, port)
        started.append(wp)
        deadline = time.monotonic() + 30
        while '"started"' not in wp.text():
            if proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"worker {name} did not start:\n{wp.text()[-3000:]}")
            time.sleep(0.05)
        return wp

    yield start
    for wp in started:
        wp.stop()


async def send_until_answered(nc: Client, subject: str, body: msgspec.Struct,
                              timeout: float = 15.0) -> GameReply:
    """Send like a gateway does: the same command id again while no worker answers."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            reply = await bus.request(nc, subject, body, GameReply, timeout=1.0)
            if reply.ok or reply.code not in ("busy", "not_owner", "conflict", "unavailable"):
                return reply
        except (nats.errors.NoRespondersError, nats.errors.TimeoutError):
            pass
        if time.monotonic() > deadline:
            raise AssertionError(f"no worker answered {subject} in {timeout}s")
        await asyncio.sleep(0.1)
