"""An embedded Postgres killed outright starts again on the same data folder: the dead
server's pid file and socket lock are recognised as stale and cleared."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import asyncpg

from services.platform import servers


async def _answers(url: str) -> bool:
    conn = await asyncpg.connect(url, timeout=5)
    try:
        return bool(await conn.fetchval("SELECT true"))
    finally:
        await conn.close()


async def test_a_killed_postgres_restarts_on_the_same_folder(server_folder: Path) -> None:
    port = servers.free_port()
    first = servers.PostgresServer(server_folder / "pg", port)
    first.start()
    assert first.process is not None
    pid = first.process.pid
    os.kill(pid, signal.SIGKILL)
    # Not reaped yet: a zombie still holds the pid that postmaster.pid names.
    time.sleep(0.3)
    assert (server_folder / "pg" / "pgdata" / "postmaster.pid").exists()
    second = servers.PostgresServer(server_folder / "pg", port)
    try:
        second.start()
        assert await _answers(second.url.replace("/postgres", "/postgres"))
    finally:
        second.stop()
        first.stop()  # reaps the zombie


async def test_a_pid_file_naming_another_live_process_is_stale(server_folder: Path) -> None:
    port = servers.free_port()
    pg = servers.PostgresServer(server_folder / "pg", port)
    pg.start()
    pg.stop()
    pgdata = server_folder / "pg" / "pgdata"
    lines = ["1", str(pgdata), "0", str(port), str(pgdata), "127.0.0.1", "0 0", "ready"]
    (pgdata / "postmaster.pid").write_text("\n".join(lines) + "\n")  # pid 1: not postgres
    (pgdata / f".s.PGSQL.{port}.lock").write_text("1\n")
    try:
        pg.start()
        assert await _answers(pg.url)
    finally:
        pg.stop()


async def test_a_server_in_a_folder_too_deep_for_a_unix_socket_starts_on_tcp(
        server_folder: Path) -> None:
    deep = server_folder / ("d" * 60) / ("e" * 60)  # past the 107 bytes a socket path may hold
    pg = servers.PostgresServer(deep / "pg", servers.free_port())
    try:
        pg.start()
        assert await _answers(pg.url)
    finally:
        pg.stop()
