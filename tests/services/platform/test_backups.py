"""Backups restored to a moment (``spades backup``, ``backup verify``, ``restore``): a
full and an incremental base backup and the WAL streamed by ``pg_receivewal``, replayed
into a new data folder up to a moment between two games and between two results of a
tournament's round."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path

import asyncpg
import pytest

from engine import replay
from engine.presets import PRESETS
from schemas.events import GameEnded
from schemas.tournaments import commands as cmd
from services.platform import dbadmin, servers
from services.platform.db import create_pool
from services.platform.events import game_registry
from services.platform.eventstore import EventStore
from services.platform.servers import backups
from services.ratings import results
from services.upkeep_cli import migrate
from tests.engine.helpers import bot_game
from tests.services.ratings.conftest import SYSTEM, envelope
from tests.services.tournaments.driver import MINUTE, STARTS
from tests.services.tournaments.test_store import create, enter, expected, projection, store_on
from tests.waiting import until

ROOT = Path(__file__).resolve().parents[3]
PLAYERS = ("p1", "p2", "p3", "p4")


class Platform:
    """A database's server of its own with its WAL archived, and the games and ratings
    written as the game workers and the ratings service write them."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.server = servers.PostgresServer(folder / "pg", servers.free_port(), settings={
            "summarize_wal": "on", "full_page_writes": "on"})
        self.archive = backups.WalArchiver("", folder / "backup")

    async def start(self) -> str:
        self.server.start()
        self.url = await dbadmin.ensure_database(self.server.url, "spades")
        await migrate(self.url)
        self.archive.url = self.url
        self.archive.start()
        self.games = await create_pool(self.url, "game")
        self.ratings = await create_pool(self.url, "ratings")
        self.tournaments = await create_pool(self.url, "tournaments")
        return self.url

    async def tournament(self) -> tuple[str, list[str]]:
        """A tournament of four teams in its first round: its id and the round's matches."""
        store = store_on(self.tournaments)
        tid = await create(store, teams=4)
        for i in range(4):
            await enter(store, tid, f"t{i}")
        await store.fire_due(STARTS)  # start, then pair round 1
        await store.fire_due(STARTS)
        return tid, list((await store.load(tid)).rounds[0].match_ids)

    async def result(self, tid: str, match_id: str) -> None:
        await store_on(self.tournaments).execute(tid, cmd.RecordResult(
            at=STARTS + MINUTE, match_id=match_id, outcome="home", scores=(500, 300)))

    async def play(self, n: int) -> None:
        """A rated game to its end, and its rating applied as the consumer applies it."""
        events = bot_game(PRESETS["quick"], n, players=PLAYERS, rated=True)
        await EventStore(self.games, game_registry()).append(f"g{n}", 0, events)
        ended = events[-1]
        assert isinstance(ended, GameEnded)
        async with self.ratings.acquire() as conn, conn.transaction():
            await results.handler(SYSTEM)(conn, envelope(f"g{n}", ended, version=len(events)))

    async def archived(self) -> bool:
        """Whether the archive has every byte of WAL written so far."""
        return bool(await self.games.fetchval(
            "SELECT flush_lsn >= pg_current_wal_lsn() FROM pg_stat_replication "
            "WHERE application_name = $1", backups.ARCHIVER))

    async def stop(self) -> None:
        for pool in (getattr(self, "games", None), getattr(self, "ratings", None),
                     getattr(self, "tournaments", None)):
            if pool:
                await pool.close()
        self.archive.stop()
        self.server.stop()


@pytest.fixture
async def platform(server_folder: Path) -> AsyncIterator[Platform]:
    made = Platform(server_folder)
    try:
        await made.start()
        yield made
    finally:
        await made.stop()


def spades(*args: str, backup: Path, url: str = "", fails: bool = False) -> str:
    """What the command printed (on stderr if it ``fails``, as it must then)."""
    env = {**os.environ, "SPADES_BACKUP_DIR": str(backup), "PYTHONPATH": str(ROOT),
           "DATABASE_URL": url}
    done = subprocess.run([sys.executable, "-m", "services.cli", *args], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == (1 if fails else 0), done.stderr
    return done.stderr if fails else done.stdout


async def rebuilt_ratings(url: str, endings: list[tuple[str, GameEnded, int]]
                          ) -> list[asyncpg.Record]:
    """The ratings a rebuild gives from these endings, in a fresh database."""
    pool = await create_pool(url, "ratings")
    try:
        for stream, ended, version in endings:
            async with pool.acquire() as conn, conn.transaction():
                await results.handler(SYSTEM)(conn, envelope(stream, ended, version=version))
        return await pool.fetch("SELECT player_id, rating, games FROM ratings ORDER BY 1")
    finally:
        await pool.close()


async def test_a_restore_to_a_moment_between_games_keeps_before_and_drops_after(
        platform: Platform, make_database: Callable[[], Awaitable[str]]) -> None:
    backup = platform.folder / "backup"
    await platform.play(1)
    tid, (first, second) = await platform.tournament()
    assert "full backup" in await asyncio.to_thread(spades, "backup", backup=backup,
                                                    url=platform.url)
    await platform.play(2)
    await platform.result(tid, first)
    assert "incremental backup" in await asyncio.to_thread(spades, "backup", backup=backup,
                                                    url=platform.url)
    await platform.play(3)
    moment = datetime.now(UTC)
    await platform.play(4)
    await platform.result(tid, second)
    await until(platform.archived)
    said = await asyncio.to_thread(spades, "backup", "verify", backup=backup)
    assert said.count("ok  ") == 2 and "restorable to any moment from" in said

    restored = platform.folder / "restored"
    said = await asyncio.to_thread(spades, "restore", "--to", moment.isoformat(),
                                   "--data-dir", str(restored), backup=backup)
    assert f"restored to {moment.isoformat()}" in said
    server = servers.PostgresServer(restored / "postgres", servers.free_port())
    server.start()
    try:
        url = dbadmin.with_database(server.url, "spades")
        games = await create_pool(url, "game")
        try:
            store = EventStore(games, game_registry())
            streams = [r["stream"] for r in await games.fetch(
                "SELECT DISTINCT stream FROM events ORDER BY 1")]
            assert streams == ["g1", "g2", "g3"]
            endings = []
            for stream in streams:
                events = [r.event for r in await store.read(stream)]
                assert replay.verify(events) is None  # type: ignore[arg-type]
                assert isinstance(events[-1], GameEnded)
                endings.append((stream, events[-1], len(events)))
            rows = await games.fetch("SELECT player_id, rating, games FROM ratings.ratings "
                                     "ORDER BY 1")
        finally:
            await games.close()
        tournaments = await create_pool(url, "tournaments")
        try:  # the round as it stood: the first result in, the second not yet
            state = await store_on(tournaments).load(tid)
            assert [state.matches[m].outcome for m in (first, second)] == ["home", None]
            assert await projection(tournaments, tid) == expected(state)
        finally:
            await tournaments.close()
    finally:
        server.stop()
    assert [tuple(r) for r in rows] == [
        tuple(r) for r in await rebuilt_ratings(await make_database(), endings)]
    assert all(r["games"] == 3 for r in rows)

    # A moment the archive does not reach yet is refused, and nothing half made is left.
    later = platform.folder / "later"
    said = await asyncio.to_thread(spades, "restore", "--to", "2999-01-01T00:00:00Z",
                                   "--data-dir", str(later), backup=backup, fails=True)
    assert "the WAL archive ends before 2999-01-01T00:00:00+00:00" in said
    assert not (later / "postgres").exists()
