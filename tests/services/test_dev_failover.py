"""`SPADES_DEV_PG_STANDBY=1 spades dev` loses the primary's machine mid-game, a ranked
match in its ready check and a tournament's first round in play (kill -9 and its data
folder deleted): the standby is promoted, the services carry on without a restart, the
command in flight is answered ``unavailable`` and acknowledged when sent again with its
id, nothing acknowledged is lost, every game verifies, the ready check ends in a rated
game, the tournament plays on to its champion with each result recorded once and its
standings equal to a recount of its events, and a new standby is copied from the new
primary while play goes on."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from engine import replay
from schemas import ws
from services.platform import dbadmin, servers
from services.platform.db import create_pool
from services.platform.events import game_registry
from services.platform.eventstore import EventStore
from services.platform.servers.replication import STANDBY
from services.platform.servers.tools import query
from spades_client import GameConnection, Lobby, first_legal
from tests.e2e.ranked import QUEUE_ENV, Queuer, close_all
from tests.e2e.replays import registered
from tests.services.devcup import Cup
from tests.services.test_dev import (
    cli,
    dev_env,
    ports,
    spades,
    spades_logged,
    wait_for_line,
    wal_archived,
)
from tests.waiting import until

__all__ = ["ports"]


async def _my_move(game: GameConnection) -> None:
    """Take frames in until our seat must act."""
    async with asyncio.timeout(30):
        while not game.my_turn():
            await game.next()


async def _acked(game: GameConnection, command_id: str) -> int:
    while True:
        frame = await game.next()
        if getattr(frame, "command_id", None) == command_id:
            assert isinstance(frame, ws.Ack), frame
            return frame.version


async def seated(lobby: Lobby, name: str) -> GameConnection:
    """``name``, a guest, at a table of three bots, its game started and followed (a
    command refused ``unavailable`` is sent again, as often as it takes)."""
    await lobby.guest(name)
    table = await lobby.create_table("quick")
    await lobby.set_bots(table.table_id)
    started = await lobby.start(table.table_id)
    assert started.game_id is not None
    game = GameConnection(lobby.ws_url, lobby.token, started.game_id, max_retries=1000)
    await game.open()
    return game


async def moves(game: GameConnection, n: int) -> list[int]:
    """Our next ``n`` moves, each acknowledged: their versions."""
    acked = []
    for _ in range(n):
        await _my_move(game)
        acked.append((await game.command(first_legal(game.turn))).version)  # type: ignore[arg-type]
    return acked


async def test_the_primary_machine_lost_mid_game_fails_over_with_nothing_lost(
        server_folder: Path, ports: dict[str, int], nats_url: str, nats_prefix: str) -> None:
    pg_port = servers.free_ports(2)
    env = dev_env(server_folder, ports, NATS_URL=nats_url, SPADES_NATS_PREFIX=f"{nats_prefix}fo",
                  SPADES_DEV_PG_STANDBY="1", SPADES_DEV_PG_PORT=str(pg_port),
                  SPADES_BOT_THINK_MS="0", SPADES_BACKUP_DIR=str(server_folder / "backup"),
                  **{**QUEUE_ENV, "SPADES_QUEUE_ACCEPT_SECONDS": "60"})
    env.pop("SPADES_EPHEMERAL_PG", None)  # the durability spades dev really runs with
    log = server_folder / "dev.log"
    proc = spades_logged(log, "dev", env=env)
    lobby = Lobby(f"http://127.0.0.1:{ports['lobby']}")
    queuers: list[Queuer] = []
    url = (f"postgresql://{servers.PG_USER}@127.0.0.1:{pg_port},127.0.0.1:{pg_port + 1}"
           "/spades?target_session_attrs=read-write")
    base = f"http://127.0.0.1:{ports['lobby']}"
    cup = Cup(base, url)
    try:
        wait_for_line(proc, log, "spades dev is up")
        assert "full backup" in await asyncio.to_thread(cli, "backup", env=env)
        # A tournament's first round in play, both its games, when the machine goes.
        # A ranked match in its ready check then too.
        async def queuer(i: int) -> Queuer:
            person = await registered(base, f"Ranked{i}")
            return Queuer(person, await person.socket(f"ws://127.0.0.1:{ports['lobby']}/v1/ws"))

        opening = asyncio.create_task(cup.open(starts_in=4))
        queuers[:] = await asyncio.gather(*map(queuer, range(4)))
        await opening
        for q in queuers:
            await q.join()
        offers = [await q.note("match_found", 30) for q in queuers]
        await until(lambda: cup.in_play(2), timeout=60, every=0.1)
        cup.pace = 1.0  # so that both are still in play when the machine goes, however slow
        game = await seated(lobby, "Survivor")
        acked = await moves(game, 3)
        await _my_move(game)

        # The machine goes while spades dev is held, so the command sent now is in
        # flight before any failover: it must be refused, not lost.
        os.kill(proc.pid, signal.SIGSTOP)
        assert await cup.in_play(2)  # the round's two games are still in play
        pgdata = server_folder / "data" / "postgres" / "pgdata"
        os.kill(int((pgdata / "postmaster.pid").read_text().split()[0]), signal.SIGKILL)
        killed = time.monotonic()
        shutil.rmtree(pgdata.parent)
        command_id = await game.send(first_legal(game.turn))  # type: ignore[arg-type]
        answer = asyncio.create_task(_acked(game, command_id))

        async def refused() -> bool:
            return game.retries > 0

        await until(refused, timeout=30)
        os.kill(proc.pid, signal.SIGCONT)
        cup.pace = 0  # the round's games go on at once to their ends
        acked.append(await asyncio.wait_for(answer, 60))
        took = time.monotonic() - killed
        print(f"kill -9 of the primary to the first acknowledged command: {took:.2f}s "
              f"({game.retries} answer(s) unavailable before it)")
        acked += await moves(game, 3)  # play goes on on the new primary
        for q, offer in zip(queuers, offers, strict=True):  # and the ready check ends
            await q.sock.send({"type": "queue_accept", "match_id": offer["match_id"]})
        ranked = [await q.note("match_started", 30) for q in queuers]
        assert len({n["game_id"] for n in ranked}) == 1 and ranked[0]["rated"]

        view = await cup.finished()  # the round completes, and the final after it
        await asyncio.to_thread(wait_for_line, proc, log, "is synchronous", 120)
        assert proc.poll() is None  # no service exited: spades dev stops when one does
        assert query(url, "SELECT application_name, sync_state FROM pg_stat_replication "
                          f"WHERE application_name = '{STANDBY}'") == [f"{STANDBY}|sync"]
        await cup.recounted(url)
        pool = await create_pool(url, "game")
        try:
            store = EventStore(pool, game_registry())
            events = [r.event for r in await store.read(game.game_id)]
            for match in view["matches"]:
                played = [r.event for r in await store.read(match["game_id"])]
                assert replay.verify(played) is None  # type: ignore[arg-type]
        finally:
            await pool.close()
        assert len(events) >= max(acked) and acked == sorted(acked)
        assert replay.verify(events) is None  # type: ignore[arg-type]

        # The WAL archive followed the failover: a restore reaches a moment after it.
        await _my_move(game)
        kept = _counts(url, game.game_id, cup.tid)
        moment = datetime.now(UTC)
        await moves(game, 2)
        await wal_archived(url, env)
        restored = server_folder / "restored"
        await asyncio.to_thread(cli, "restore", "--to", moment.isoformat(),
                                "--data-dir", str(restored), env=env)
        server = servers.PostgresServer(restored / "postgres", servers.free_port())
        server.start()
        try:
            assert _counts(dbadmin.with_database(server.url, "spades"), game.game_id,
                           cup.tid) == kept
        finally:
            server.stop()
        await game.close()
    finally:
        await cup.close()
        await close_all(queuers)
        await lobby.aclose()
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGCONT)
            proc.terminate()
            proc.wait(60)


def _counts(url: str, game_id: str, tid: str) -> list[str]:
    """How many events the game and the tournament have."""
    return query(url, f"SELECT (SELECT count(*) FROM game.events WHERE stream = '{game_id}')"
                      " || ' ' || (SELECT count(*) FROM tournaments.events"
                      f" WHERE stream = 'tournament-{tid}')")


@pytest.mark.parametrize(("setting", "value", "said"), [
    ("SPADES_DEV_PG_STANDBY", "yes", "is not 0 or 1"),
    ("SPADES_DEV_PG_STANDBY_LOST", "maybe", "is not wait or alone"),
])
def test_dev_names_a_bad_standby_setting_in_one_line(
        tmp_path: Path, ports: dict[str, int], setting: str, value: str, said: str) -> None:
    env = dev_env(tmp_path, ports, **{"SPADES_DEV_PG_STANDBY": "1", setting: value})
    proc = spades("dev", env=env)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 1
    assert err.strip() == f"spades: setting {setting} is invalid: {value!r} {said}"
