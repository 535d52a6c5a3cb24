"""A platform of its own for the ranked queue's tests: its own database and JetStream
names, so no other lobby copy's matchmaker takes part, with cycles short enough to test.

Two lobby copies (the matchmaker leads on one of them), two game workers and the
ratings service, each in its own process.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import asyncpg

from tests.e2e.replays import registered
from tests.services.lobby.harness import Player, Service, Socket, lobby_env, start
from tests.waiting import until

ONE_HAND = json.dumps({"preset": "classic", "target": None, "max_hands": 1})
QUEUE_ENV = {"SPADES_RANKED_MIN_GAMES": "0", "SPADES_RANKED_RULES": ONE_HAND,
             "SPADES_QUEUE_CYCLE_SECONDS": "0.5", "SPADES_QUEUE_ACCEPT_SECONDS": "5",
             "SPADES_QUEUE_HEARTBEAT_SECONDS": "0.5", "SPADES_MATCHMAKER_LEASE_SECONDS": "2",
             "SPADES_QUEUE_INVITE_SECONDS": "60", "SPADES_WS_FRAMES_PER_SECOND": "200",
             "SPADES_WS_FRAME_BURST": "400", "SPADES_DISCONNECT_GRACE_SECONDS": "1"}


@dataclass
class Ranked:
    gateways: list[Service]
    workers: list[Service]
    ratings: Service
    logs: Path
    database_url: str
    env: dict[str, str]

    def lobby(self, i: int) -> Service:
        return self.gateways[i % len(self.gateways)]

    def start_lobby(self, name: str) -> Service:
        svc = start("lobby", self.logs / f"{name}.log", **self.env, **QUEUE_ENV)
        self.gateways.append(svc)
        return svc

    async def sql(self, query: str, *args: Any) -> list[asyncpg.Record]:
        conn = await asyncpg.connect(self.database_url,
                                     server_settings={"search_path": "lobby,public"})
        try:
            return list(await conn.fetch(query, *args))
        finally:
            await conn.close()

    async def drain(self, queuers: list[Queuer]) -> None:
        """Close the players' sockets and wait until none of them has a ticket left, so
        the next test's players are matched among themselves."""
        await close_all(queuers)
        ids = [q.id for q in queuers]

        async def drained() -> bool:
            return not await self.sql("SELECT 1 FROM queue_members WHERE player_id = ANY($1)"
                                      " LIMIT 1", ids)
        await until(drained, timeout=20)

    async def leader(self) -> str:
        rows = await self.sql("SELECT holder FROM leases WHERE name = 'matchmaker'"
                              " AND until > now()")
        return rows[0]["holder"] if rows else ""


@contextlib.asynccontextmanager
async def ranked_platform(logs: Path, database_url: str, nats_url: str,
                          prefix: str, **more: str) -> AsyncIterator[Ranked]:
    """``more``: settings every service is given besides (a trace collector's address)."""
    env = lobby_env(database_url, nats_url, prefix, **more)
    started: list[Service] = []
    lobbies: list[Service] = []
    ranked: Ranked | None = None
    try:
        workers = [start("game", logs / f"game-{i}.log", SPADES_BOT_THINK_MS="0", **env)
                   for i in range(2)]
        started += workers
        ratings = start("ratings", logs / "ratings.log", SPADES_LEADERBOARD_REFRESH_SECONDS="1",
                        **env)
        started.append(ratings)
        ranked = Ranked(lobbies, workers, ratings, logs, database_url, env)
        for i in range(2):
            ranked.start_lobby(f"lobby-{i}")
        yield ranked
    finally:
        # A test may have replaced the ratings service: stop the one running now too.
        now = [ranked.ratings] if ranked is not None else []
        for svc in reversed([*started, *lobbies, *now]):
            svc.stop()


class Queuer:
    """A registered player with a socket, speaking the queue's frames."""

    def __init__(self, player: Player, sock: Socket) -> None:
        self.player, self.sock = player, sock

    @classmethod
    async def make(cls, lobby: Service, name: str) -> Queuer:
        player = await registered(lobby.url, name)
        return cls(player, await player.socket(lobby.ws_url))

    @property
    def id(self) -> str:
        return self.player.player_id

    async def join(self, partner: str | None = None) -> None:
        await self.sock.send({"type": "queue_join", "partner": partner})

    async def note(self, kind: str, timeout: float = 15.0,
                   where: Callable[[dict[str, Any]], bool] = lambda n: True) -> dict[str, Any]:
        frame = await self.sock.until(lambda f: f["type"] == "note" and f["note"]["kind"] == kind
                                      and where(f["note"]), timeout)
        return frame["note"]

    async def status(self, state: str, timeout: float = 15.0) -> dict[str, Any]:
        return await self.note("queue_status", timeout, lambda n: n["state"] == state)

    async def error(self, timeout: float = 10.0) -> dict[str, Any]:
        return await self.sock.of_type("error", timeout)

    async def close(self) -> None:
        await self.sock.close()
        await self.player.aclose()


async def close_all(queuers: list[Queuer]) -> None:
    await asyncio.gather(*(q.close() for q in queuers), return_exceptions=True)


async def gather(*calls: Awaitable[Any]) -> list[Any]:
    return list(await asyncio.gather(*calls))


def tag() -> str:
    """A few letters that keep a test's names apart from other tests' on one platform."""
    return uuid.uuid4().hex[:6]


async def queuers(ranked: Ranked, n: int, label: str) -> list[Queuer]:
    """``n`` registered players with sockets, spread over both gateways."""
    return list(await asyncio.gather(*(Queuer.make(ranked.lobby(i), f"{label}{tag()}{i}")
                                       for i in range(n))))


async def found(qs: list[Queuer], timeout: float = 20.0) -> list[dict[str, Any]]:
    return list(await asyncio.gather(*(q.note("match_found", timeout) for q in qs)))
