"""The bare composite: the work of one game command with no services between, in one process.

What the platform does per command, done the shortest way, so the whole-stack
bench has something to be compared with: a WebSocket frame in, decoded with
msgspec, decided by the pure engine, one durable Postgres insert (fsync on, its
own transaction), one awaited JetStream publish of the command's events, and
each event out to the game's four sockets as the seat may see it (the engine's
``redact`` and ``view``, as the gateway sends them). No NATS request between a
gateway and a worker, no outbox, no leases, no idempotency table: the floor the
platform's cost per command is measured against.

It speaks the same frames as ``/v1/ws`` for the few the load generator uses
(welcome, subscribe, snapshot, subscribed, bid, play, ack, event), so the
platform bench drives both with one client and measures latency the same way.
A socket names its game and seat as its token (``?token=GAME.SEAT``): no sign-in.

The platform bench (``python -m tests.bench platform_bench``) starts it in a
child process (``python -m tests.bench.composite DATABASE_URL NATS_URL``, which
prints its port and runs until its stdin closes), runs the same games against
it and the platform back to back, and prints the ratio.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import asyncpg
import msgspec
import nats
from websockets.asyncio.server import ServerConnection, serve

from engine.decide import step
from engine.errors import RuleError
from engine.presets import resolve
from engine.state import GameState
from engine.views import redact, turn, view
from schemas import commands as cmd
from schemas import ws
from schemas.events import Event

LONG = 600_000
RULES = {"preset": "quick", "clocks": {"bid_ms": LONG, "play_ms": LONG, "single_card_ms": LONG,
                                       "bank_blocks": 0, "bank_block_ms": LONG}}
_frame = msgspec.json.Decoder(ws.Subscribe | ws.Look | ws.Bid | ws.Play)
_json = msgspec.json.Encoder().encode
_pack = msgspec.msgpack.Encoder().encode


@dataclass(eq=False)
class Game:
    game_id: str
    state: GameState
    sockets: dict[int, ServerConnection] = field(default_factory=dict)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class Composite:
    def __init__(self, db: asyncpg.Pool, js: Any, subject: str) -> None:
        self.db, self.js, self.subject = db, js, subject
        self.games: dict[str, Game] = {}

    def game(self, game_id: str) -> Game:
        g = self.games.get(game_id)
        if g is None:
            start = cmd.StartGame(rules=resolve(RULES), players=(
                "p0", "p1", "p2", "p3"), seed=os.urandom(16).hex(), at=int(time.time() * 1000))
            state, _ = step(GameState(), start)
            g = self.games[game_id] = Game(game_id, state)
        return g

    async def handle(self, sock: ServerConnection) -> None:
        assert sock.request is not None
        query = dict(p.split("=", 1) for p in sock.request.path.split("?", 1)[1].split("&"))
        game_id, seat_no = query["token"].split(".")
        g, seat = self.game(game_id), int(seat_no)
        g.sockets[seat] = sock
        await sock.send(_json(ws.Welcome(player_id=f"p{seat}", name=f"p{seat}", expires_at=0)))
        async for raw in sock:
            frame = _frame.decode(raw)
            if isinstance(frame, ws.Subscribe):
                await sock.send(_json(ws.Snapshot(game_id=g.game_id, table_id="",
                                                  version=g.state.version,
                                                  view=view(g.state, seat))))
                await sock.send(_json(ws.Subscribed(game_id=g.game_id, table_id="", seat=seat,
                                                    version=g.state.version, resumed=False)))
            elif isinstance(frame, ws.Look | ws.Bid | ws.Play):
                await self.command(g, sock, frame)

    async def command(self, g: Game, sock: ServerConnection,
                      frame: ws.Look | ws.Bid | ws.Play) -> None:
        at = int(time.time() * 1000)
        command: cmd.Command
        if isinstance(frame, ws.Bid):
            command = cmd.PlaceBid(seat=frame.seat, bid=frame.bid, at=at)
        elif isinstance(frame, ws.Play):
            command = cmd.PlayCard(seat=frame.seat, card=frame.card, at=at)
        else:
            command = cmd.LookAtCards(seat=frame.seat, at=at)
        async with g.lock:  # one writer per game, as a worker's game task
            try:
                after, events = step(g.state, command)
            except RuleError as exc:
                await sock.send(_json(ws.Error(code=exc.code, message=exc.message,
                                               command_id=frame.command_id)))
                return
            first = g.state.version + 1
            bodies = [_pack(e) for e in events]
            await self.db.execute(
                "INSERT INTO bare_events (game_id, version, body)"
                " SELECT $1, $2 + i - 1, b FROM unnest($3::bytea[]) WITH ORDINALITY AS t(b, i)",
                g.game_id, first, bodies)
            acks = [await self.js.publish_async(
                f"{self.subject}.{g.game_id}", body,
                headers={"Nats-Msg-Id": f"{g.game_id}:{first + i}"})
                for i, body in enumerate(bodies)]
            await asyncio.gather(*acks)
            g.state = after
        await sock.send(_json(ws.Ack(command_id=frame.command_id, version=after.version)))
        await self.fan_out(g, events, after, first)

    async def fan_out(self, g: Game, events: list[Event], after: GameState, first: int) -> None:
        """Each event to each seat as that seat may see it, with its turn."""
        for seat, sock in g.sockets.items():
            t = turn(after, seat)
            for i, e in enumerate(events):
                shown = redact(e, after, seat)
                if shown is not None:
                    await sock.send(_json(ws.EventFrame(game_id=g.game_id, version=first + i,
                                                        event=shown,  # type: ignore[arg-type]
                                                        turn=t)))


async def _no_reset(conn: asyncpg.Connection) -> None:
    """This process leaves no session state: no reset query per release."""


async def serve_forever(db_url: str, nats_url: str) -> None:
    """Run the composite until stdin closes; print its port first."""
    db = await asyncpg.create_pool(db_url, min_size=4, max_size=20, reset=_no_reset)
    assert db is not None
    await db.execute("CREATE TABLE IF NOT EXISTS bare_events (game_id text, version int,"
                     " body bytea NOT NULL, PRIMARY KEY (game_id, version))")
    nc = await nats.connect(nats_url)
    js = nc.jetstream(publish_async_max_pending=100_000)
    tag = uuid.uuid4().hex[:8]
    subject = f"bare{tag}"
    await js.add_stream(name=f"BARE{tag}", subjects=[f"{subject}.>"])
    composite = Composite(db, js, subject)
    async with serve(composite.handle, "127.0.0.1", 0, compression=None,
                     max_size=2**20) as server:
        port = server.sockets[0].getsockname()[1]
        print(port, flush=True)
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, sys.stdin.read)
    await js.delete_stream(f"BARE{tag}")
    await nc.close()
    await db.close()


class Server:
    """The composite in a child process of its own, as the platform's servers are."""

    def __init__(self, db_url: str, nats_url: str) -> None:
        self.db_url, self.nats_url = db_url, nats_url
        self.proc: asyncio.subprocess.Process | None = None
        self.url = ""

    async def __aenter__(self) -> Server:
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "tests.bench.composite", self.db_url,
            self.nats_url, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
        assert self.proc.stdout is not None
        port = int(await asyncio.wait_for(self.proc.stdout.readline(), 60))
        self.url = f"ws://127.0.0.1:{port}/"
        return self

    async def __aexit__(self, *_: object) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        self.proc.stdin.close()
        await asyncio.wait_for(self.proc.wait(), 30)

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid


def main() -> None:
    asyncio.run(serve_forever(sys.argv[1], sys.argv[2]))


if __name__ == "__main__":
    main()
