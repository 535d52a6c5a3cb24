"""Game worker throughput and latency: N games at once through one `spades serve game`.

Two loads, each for N = 1, 10 and 100 games at once, zero bot think time:

- bots in the worker: every seat a bot seat, the worker plays all of it; games
  per minute and commands per second (one command per bid, look, pass or card).
- seats driven over NATS: every seat a person's, played by this process as a
  gateway would send them: a ``GameRequest`` per move, the move chosen by the
  ``basic`` bot on the state folded from the events received. Latency of each
  command from request sent to reply received, and to its event received from
  the JetStream subject (the outbox relay's publication).

The worker is its own process; this process is the load generator, on the same
machine. Matches are the ``quick`` preset (four hands). Figures are printed,
not asserted.

    python -m tests.bench.worker_bench [--games 1,10,100] [--only bots|nats]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import asyncpg
import msgspec
import nats

from engine import bots
from engine.evolve import evolve
from engine.presets import QUICK
from engine.state import OVER, GameState, seats_in
from schemas.bus import EventEnvelope
from schemas.commands import GameCommand
from schemas.gamebus import CreateGame, GameReply, GameRequest
from schemas.rules import Clocks
from schemas.subjects import Names
from services import catalog
from services.platform import bus, dbadmin, migrations, servers
from services.platform.events import game_registry
from tests.bench.servers import bench_servers, percentiles

ROOT = Path(__file__).resolve().parents[2]
RULES = msgspec.structs.replace(QUICK, clocks=Clocks(bid_ms=600_000, play_ms=600_000,
                                                      single_card_ms=600_000))
MOVES = ("CardsLooked", "BidPlaced", "CardsPassed", "CardPlayed")
REGISTRY = game_registry()


def start_worker(db_url: str, nats_url: str, prefix: str, log: Path) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SPADES_")}
    env.update({"DATABASE_URL": db_url, "NATS_URL": nats_url, "PYTHONPATH": str(ROOT),
                "SPADES_NATS_PREFIX": prefix, "SPADES_HTTP_PORT": str(servers.free_port()),
                "SPADES_HTTP_HOST": "127.0.0.1", "SPADES_BOT_THINK_MS": "0",
                "SPADES_LOG_LEVEL": "warning", "SPADES_INSTANCE_ID": "bench-worker",
                "SPADES_DB_POOL_MAX": "20", "SPADES_INBOX_SIZE": "64"})
    with open(log, "wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "services.cli", "serve", "game"],
                                env=env, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
    return proc


async def wait_ready(nc: nats.NATS, names: Names, proc: subprocess.Popen[bytes]) -> None:
    from schemas.bus import StatusReply, StatusRequest
    for _ in range(300):
        if proc.poll() is not None:
            raise RuntimeError("the worker exited at start-up")
        try:
            await bus.request(nc, names.endpoint("game", "status"), StatusRequest(), StatusReply,
                              timeout=0.5)
            return
        except Exception:
            await asyncio.sleep(0.1)
    raise RuntimeError("the worker never answered")


def cpu_seconds(pid: int) -> float:
    """User and system CPU time a process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def bots_in_worker(nc: nats.NATS, names: Names, pool: asyncpg.Pool, n: int,
                         pid: int) -> None:
    cpu = cpu_seconds(pid)
    ids = [f"bb{uuid.uuid4().hex[:10]}" for _ in range(n)]
    started = time.perf_counter()
    replies = await asyncio.gather(*(bus.request(
        nc, names.game_create, CreateGame(game_id=g, command_id="create", rules=RULES,
                                          players=("bot:basic",) * 4, banter=False),
        GameReply, timeout=30) for g in ids))
    assert all(r.ok for r in replies), [r.code for r in replies if not r.ok]
    while True:
        done = await pool.fetchval(
            "SELECT count(*) FROM games WHERE game_id = ANY($1::text[]) AND ended_at IS NOT NULL",
            ids)
        if done == n:
            break
        await asyncio.sleep(0.05)
    elapsed = time.perf_counter() - started
    moves = await pool.fetchval(
        "SELECT count(*) FROM events WHERE stream = ANY($1::text[]) AND type = ANY($2::text[])",
        ids, list(MOVES))
    used = cpu_seconds(pid) - cpu
    print(f"{n:>5} bots in worker  {n / elapsed * 60:>10.0f} games/min"
          f"{moves / elapsed:>12.0f} commands/s   {elapsed:6.1f} s"
          f"   worker CPU {used / moves * 1e6:5.0f} us/command", flush=True)


class Driver:
    """Plays the four seats of one game as a gateway would send people's moves."""

    def __init__(self, nc: nats.NATS, names: Names, game_id: str) -> None:
        self.nc, self.names, self.game_id = nc, names, game_id
        self.state = GameState()
        self.changed = asyncio.Event()
        self.decoder = msgspec.msgpack.Decoder(EventEnvelope)
        self.event_seen: dict[int, float] = {}
        self.to_reply: list[float] = []
        self.to_event: list[float] = []

    async def on_event(self, msg: object) -> None:
        env = self.decoder.decode(msg.data)  # type: ignore[attr-defined]
        if env.version != self.state.version + 1:
            return  # a republished duplicate (or a gap: not expected from one relay)
        e = REGISTRY.decode(env.type, env.schema_version, env.body)
        self.event_seen[env.version] = time.perf_counter()
        self.state = evolve(self.state, e)  # type: ignore[arg-type]
        self.changed.set()

    async def until(self, version: int) -> None:
        while self.state.version < version:
            self.changed.clear()
            await self.changed.wait()

    async def play(self) -> None:
        sub = await self.nc.subscribe(self.names.subject(f"game.evt.{self.game_id}.*"),
                                      cb=self.on_event)
        people = ("p0", "p1", "p2", "p3")
        reply = await bus.request(self.nc, self.names.game_create, CreateGame(
            game_id=self.game_id, command_id="create", rules=RULES, players=people,
            banter=False), GameReply, timeout=30)
        assert reply.ok, reply
        await self.until(reply.version)
        n = 0
        while self.state.phase != OVER:
            seat = seats_in(self.state.waiting)[0]
            command = bots.choose(self.state, seat, "basic")
            assert isinstance(command, GameCommand)
            n += 1
            sent = time.perf_counter()
            reply = await bus.request(self.nc, self.names.game_command(self.game_id), GameRequest(
                game_id=self.game_id, command_id=f"m{n}", command=command,
                player_id=people[seat]), GameReply, timeout=30)
            self.to_reply.append(time.perf_counter() - sent)
            if not reply.ok:
                raise RuntimeError(f"{self.game_id}: {reply.code} {reply.message}")
            await self.until(reply.version)
            self.to_event.append(self.event_seen[reply.first_version or reply.version] - sent)
        await sub.unsubscribe()


async def driven(nc: nats.NATS, names: Names, n: int, pid: int) -> None:
    cpu = cpu_seconds(pid)
    drivers = [Driver(nc, names, f"bd{uuid.uuid4().hex[:10]}") for _ in range(n)]
    started = time.perf_counter()
    await asyncio.gather(*(d.play() for d in drivers))
    elapsed = time.perf_counter() - started
    to_reply = [x for d in drivers for x in d.to_reply]
    to_event = [x for d in drivers for x in d.to_event]
    r50, r99 = percentiles(to_reply)
    e50, e99 = percentiles(to_event)
    used = cpu_seconds(pid) - cpu
    print(f"{n:>5} over NATS       {n / elapsed * 60:>10.0f} games/min"
          f"{len(to_reply) / elapsed:>12.0f} commands/s   {elapsed:6.1f} s"
          f"   worker CPU {used / len(to_reply) * 1e6:5.0f} us/command"
          f"   reply p50 {r50:5.1f} p99 {r99:5.1f} ms   event p50 {e50:5.1f} p99 {e99:5.1f} ms",
          flush=True)


async def run(db_url: str, nats_url: str, counts: list[int], only: str) -> None:
    name = f"spades_wbench_{uuid.uuid4().hex[:8]}"
    url = await dbadmin.ensure_database(db_url, name)
    conn = await asyncpg.connect(url)
    await migrations.apply(conn, [catalog.MIGRATIONS["game"]])
    await conn.close()
    prefix = f"wb{uuid.uuid4().hex[:6]}"
    names = Names(prefix)
    log = Path(tempfile.mkdtemp(prefix="spades-wbench-")) / "worker.log"
    proc = start_worker(url, nats_url, prefix, log)
    nc = await nats.connect(nats_url)
    pool = await asyncpg.create_pool(url, min_size=1, max_size=4,
                                     server_settings={"search_path": "game,public"})
    assert pool is not None
    try:
        await wait_ready(nc, names, proc)
        print("quick matches (4 hands), zero think time, one worker process, "
              "Postgres with fsync on", flush=True)
        if only in ("", "bots"):
            for n in counts:
                await bots_in_worker(nc, names, pool, n, proc.pid)
        if only in ("", "nats"):
            for n in counts:
                await driven(nc, names, n, proc.pid)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
        await pool.close()
        await nc.drain()
        await dbadmin.drop(db_url, name)


def main() -> None:
    parser = argparse.ArgumentParser(prog="worker_bench")
    parser.add_argument("--games", default="1,10,100")
    parser.add_argument("--only", choices=("bots", "nats"), default="",
                        help="run one of the two loads")
    args, _ = parser.parse_known_args(sys.argv[2:] if sys.argv[1:2] == ["worker_bench"]
                                      else sys.argv[1:])
    counts = [int(x) for x in args.games.split(",") if x]
    with bench_servers() as (db_url, nats_url):
        asyncio.run(run(db_url, nats_url, counts, args.only))


if __name__ == "__main__":
    main()
