"""`SPADES_DEV_PG_STANDBY=1 spades dev` loses the standby's machine mid-game (kill -9 and
its data folder deleted, and its port taken by something else, so that it stays away
until the test gives the port back), under each ``SPADES_DEV_PG_STANDBY_LOST`` policy:

- ``wait`` (the default): a command sent meanwhile is not acknowledged (its commit is on
  one machine only) until a new standby is copied and streams; then it is, once;
- ``alone``: the primary carries on, play goes on, and the platform says so loudly (the
  line of `spades dev`, the services' ``commits_unconfirmed`` log line and the
  ``spades_postgres_commits_unconfirmed`` gauge) until the standby is back.

Either way no service restarts, nothing acknowledged is lost and the game verifies."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import socket
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import replay
from services.platform import servers
from services.platform.db import create_pool
from services.platform.events import game_registry
from services.platform.eventstore import EventStore
from services.platform.servers.replication import STANDBY
from services.platform.servers.tools import query
from spades_client import Lobby, first_legal
from tests.services.test_dev import dev_env, ports, spades_logged, wait_for_line
from tests.services.test_dev_failover import _acked, _my_move, moves, seated
from tests.waiting import until

__all__ = ["ports"]


@contextlib.contextmanager
def taken(port: int) -> Iterator[None]:
    """Something else listening on ``port`` (the lost machine's address, not yet free)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        deadline = time.monotonic() + 10
        while True:  # the killed server's children let go of it within moments
            try:
                sock.bind(("127.0.0.1", port))
                break
            except OSError:
                assert time.monotonic() < deadline, f"port {port} stayed in use"
                time.sleep(0.05)
        sock.listen()
        yield
    finally:
        sock.close()


def unconfirmed(game_port: int) -> float:
    """The game service's gauge of commits confirmed by one machine only."""
    with urllib.request.urlopen(f"http://127.0.0.1:{game_port}/metrics", timeout=5) as r:
        for line in r.read().decode().splitlines():
            if line.startswith("spades_postgres_commits_unconfirmed "):
                return float(line.split()[1])
    raise AssertionError("no spades_postgres_commits_unconfirmed gauge")


@pytest.mark.parametrize("policy", ["wait", "alone"])
async def test_the_standby_machine_lost_mid_game_follows_the_policy(
        server_folder: Path, ports: dict[str, int], nats_url: str, nats_prefix: str,
        policy: str) -> None:
    pg_port = servers.free_ports(2)
    env = dev_env(server_folder, ports, NATS_URL=nats_url,
                  SPADES_NATS_PREFIX=f"{nats_prefix}sl{policy}", SPADES_DEV_PG_STANDBY="1",
                  SPADES_DEV_PG_PORT=str(pg_port), SPADES_DEV_PG_STANDBY_LOST=policy,
                  SPADES_BOT_THINK_MS="0")
    env.pop("SPADES_EPHEMERAL_PG", None)  # the durability spades dev really runs with
    log = server_folder / "dev.log"
    proc = spades_logged(log, "dev", env=env)
    lobby = Lobby(f"http://127.0.0.1:{ports['lobby']}")
    try:
        wait_for_line(proc, log, "spades dev is up")
        game = await seated(lobby, "Steady")
        acked = await moves(game, 2)
        assert unconfirmed(ports["game"]) == 0

        # Our turn (under `wait` the bots' moves will wait too), then the standby's
        # machine goes while spades dev is held, and its address stays taken: spades dev
        # cannot bring one back until the port is given back.
        await _my_move(game)
        os.kill(proc.pid, signal.SIGSTOP)
        standby = server_folder / "data" / "postgres-standby"
        os.kill(int((standby / "pgdata" / "postmaster.pid").read_text().split()[0]),
                signal.SIGKILL)
        shutil.rmtree(standby)
        with taken(pg_port + 1):
            os.kill(proc.pid, signal.SIGCONT)
            if policy == "wait":
                await asyncio.to_thread(wait_for_line, proc, log, "commits wait for it")
                command_id = await game.send(first_legal(game.turn))  # type: ignore[arg-type]
                answer = asyncio.create_task(_acked(game, command_id))
                # Not told while its commit is on one machine only: for a while, and all
                # the time a new standby is copied (until it fails to start on its port).
                await asyncio.gather(asyncio.sleep(3), asyncio.to_thread(
                    wait_for_line, proc, log, "cannot start yet"))
                assert not answer.done()
                assert unconfirmed(ports["game"]) == 0
            else:
                await asyncio.to_thread(wait_for_line, proc, log, "carries on ALONE")
                acked += await moves(game, 3)  # play goes on on the primary alone

                async def said_loudly() -> bool:
                    return unconfirmed(ports["game"]) == 1 and "commits_unconfirmed" in \
                        log.read_text()

                await until(said_loudly, timeout=30)
            await asyncio.to_thread(wait_for_line, proc, log, "cannot start yet")
        await asyncio.to_thread(wait_for_line, proc, log, "is back and synchronous", 120)
        if policy == "wait":
            acked.append(await asyncio.wait_for(answer, 60))
        acked += await moves(game, 2)  # and on with the new standby
        if policy == "alone":
            async def confirmed_again() -> bool:
                return unconfirmed(ports["game"]) == 0 and "commits_confirmed_again" in \
                    log.read_text()

            await until(confirmed_again, timeout=30)
        assert proc.poll() is None  # no service exited: spades dev stops when one does
        url = (f"postgresql://{servers.PG_USER}@127.0.0.1:{pg_port},127.0.0.1:{pg_port + 1}"
               "/spades?target_session_attrs=read-write")
        assert query(url, "SELECT application_name, sync_state FROM pg_stat_replication "
                          f"WHERE application_name = '{STANDBY}'") == [f"{STANDBY}|sync"]
        pool = await create_pool(url, "game")
        try:
            events = [r.event for r in await EventStore(pool, game_registry()).read(
                game.game_id)]
        finally:
            await pool.close()
        assert len(events) >= max(acked) and acked == sorted(acked)
        assert len(set(acked)) == len(acked)
        assert replay.verify(events) is None  # type: ignore[arg-type]
        await game.close()
    finally:
        await lobby.aclose()
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGCONT)
            proc.terminate()
            proc.wait(60)
