"""A lobby copy restarted under a game: nobody notices. SIGTERM drains it: every socket
gets ``moving`` once its frame in hand is answered, then close 1012; a new socket is
closed with 1012 at once; the player's client resumes on the other copy and plays on,
every command answered once (none a duplicate of an answer lost), the events whole
and in order. Two lobby copies and a game worker, each its own process."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import Iterator

import pytest
from websockets.asyncio.client import connect

from schemas import ws
from spades_client import GameConnection, first_legal
from tests.e2e.conftest import Platform
from tests.services.lobby.harness import Player, Service, lobby_env, start


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory, database_url: str, nats_url: str,
         nats_prefix: str) -> Iterator[Platform]:
    logs = tmp_path_factory.mktemp("drain-logs")
    env = lobby_env(database_url, nats_url, f"{nats_prefix}dn{uuid.uuid4().hex[:4]}",
                    SPADES_WS_FRAMES_PER_SECOND="200", SPADES_WS_FRAME_BURST="400")
    started: list[Service] = []
    try:
        started.append(start("game", logs / "game-d.log", SPADES_BOT_THINK_MS="0", **env))
        started += [start("lobby", logs / f"lobby-d{i}.log", SPADES_DRAIN_SECONDS="0.5", **env)
                    for i in range(2)]
        yield Platform(started[1:], started[:1], logs)
    finally:
        for svc in reversed(started):
            svc.stop()


async def test_a_lobby_copy_restarted_mid_game_loses_no_command_and_no_frame(
        pair: Platform) -> None:
    a, b = pair.a, pair.b
    person = await Player.guest(a.url, "Dee")
    t = await person.ok("POST", "/v1/tables", {"rules": "quick"})
    t = await person.ok("POST", f"/v1/tables/{t['table_id']}/start")
    game = GameConnection([a.ws_url, b.ws_url], person.token, t["game_id"], reconnects=10)
    await game.open()
    lobby_watch = await person.socket(a.ws_url)
    await lobby_watch.send({"type": "watch_tables"})
    acks: list[ws.Ack] = []
    stopping: asyncio.Task[None] | None = None
    moved = False
    async with asyncio.timeout(120):
        while game.ended is None:
            # Between the stop and the move the person waits (the game must not end before
            # the copy goes: on a busy machine the drain can outlast the rest of a game).
            waiting = stopping is not None and not moved
            if game.my_turn() and game.pending is None and not waiting:
                move = first_legal(game.turn)
                if move is not None:
                    await game.send(move)
            frame = await game.next()
            if isinstance(frame, ws.Ack):
                acks.append(frame)
            moved = moved or isinstance(frame, ws.Moving)
            if stopping is None and len(acks) == 3:
                # The copy the person is on goes away while they play.
                stopping = asyncio.create_task(asyncio.to_thread(a.stop))
    assert stopping is not None
    await stopping
    assert moved and game.resumes >= 1
    assert [ack.duplicate for ack in acks] == [False] * len(acks)
    versions = [e.version for e in game.events]
    assert versions == list(range(versions[0], versions[0] + len(versions)))
    # The other socket on the copy heard `moving` last, then the close 1012.
    frames = []
    with contextlib.suppress(Exception):
        while True:
            frames.append(await lobby_watch.recv(5))
    assert frames and frames[-1]["type"] == "moving"
    assert lobby_watch.conn.close_code == 1012
    await game.close()
    await person.aclose()


async def test_a_draining_copy_closes_a_new_socket_with_1012(
        pair: Platform, tmp_path_factory: pytest.TempPathFactory, database_url: str,
        nats_url: str, nats_prefix: str) -> None:
    logs = tmp_path_factory.mktemp("drain-new")
    env = lobby_env(database_url, nats_url, f"{nats_prefix}dn{uuid.uuid4().hex[:4]}")
    # A long drain, and a socket that holds it open: the copy is draining, not gone.
    c = start("lobby", logs / "lobby-dn.log", SPADES_SHUTDOWN_GRACE_SECONDS="6", **env)
    try:
        person = await Player.guest(c.url, "Nia")
        held = await person.socket(c.ws_url)
        busy = asyncio.create_task(asyncio.to_thread(c.stop))
        await held.of_type("moving", timeout=10)
        async with connect(f"{c.ws_url}?token={person.token}") as late:
            with pytest.raises(Exception):  # noqa: B017 (the close, whatever its class)
                await asyncio.wait_for(late.recv(), 5)
            assert late.close_code == 1012
        await held.close()
        await busy
        await person.aclose()
    finally:
        c.stop()
