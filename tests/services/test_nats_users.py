"""deploy/nats-users.conf on a real nats-server: each service can do its own work on
the bus and nothing else (no anonymous client, no game started or game event written
by a service that must not)."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import nats
import nats.errors
import pytest
from nats.aio.client import Client
from nats.aio.msg import Msg

from schemas import subjects
from services.platform import bus, connection, servers
from services.platform.busclient import BusClient

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
N = subjects.Names()
PASSWORDS = {s: f"pw-{s}-0123456789" for s in ("lobby", "game", "ratings", "tournaments")}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("nats-users")
    shutil.copy(DEPLOY / "nats-users.conf", root / "nats-users.conf")
    port = servers.free_port()
    (root / "server.conf").write_text(
        f"host: 127.0.0.1\nport: {port}\njetstream {{ store_dir: {root / 'js'} }}\n"
        "include ./nats-users.conf\n")
    env = {**os.environ, **{f"NATS_{s.upper()}_PASSWORD": pw for s, pw in PASSWORDS.items()}}
    proc = subprocess.Popen([str(servers.nats_server_binary()), "-c", str(root / "server.conf")],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            if servers.port_in_use(port):
                break
            asyncio.run(asyncio.sleep(0.05))
        yield f"127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(10)


async def _as(service: str, server: str) -> tuple[Client, list[Exception]]:
    errors: list[Exception] = []

    async def on_error(exc: Exception) -> None:
        errors.append(exc)

    nc = connection.NatsClient()  # the services' own kind, as a BusClient takes
    await nc.connect(f"nats://{service}:{PASSWORDS[service]}@{server}",
                     error_cb=on_error, allow_reconnect=False)
    return nc, errors


async def test_no_client_connects_without_a_service_user(server: str) -> None:
    with pytest.raises(connection.BusUnavailable):
        await connection.connect_once(f"nats://{server}", "anonymous", timeout=1.0)
    with pytest.raises(connection.BusUnavailable):
        await connection.connect_once(f"nats://lobby:wrong@{server}", "guesser", timeout=1.0)


async def test_only_the_lobby_starts_games(server: str) -> None:
    game, _ = await _as("game", server)
    got: list[bytes] = []

    async def on_msg(msg: Msg) -> None:
        got.append(msg.data)

    sub = await game.subscribe(N.game_create, cb=on_msg)
    await game.flush()
    for service in ("ratings", "tournaments", "game", "lobby"):
        nc, errors = await _as(service, server)
        await nc.publish(N.game_create, service.encode())
        await nc.flush()
        await asyncio.sleep(0.2)
        if service != "lobby":
            assert any("permissions violation" in str(e).lower() for e in errors), service
        await nc.close()
    await asyncio.sleep(0.2)
    assert got == [b"lobby"]
    await sub.unsubscribe()
    await game.close()


async def test_game_events_are_written_by_game_workers_and_read_by_the_others(
        server: str) -> None:
    game, _ = await _as("game", server)
    spec = bus.StreamSpec(N.game_events_stream, (N.game_events_all,), duplicate_window=60)
    await bus.ensure_stream(BusClient(game), spec)
    ack = await game.jetstream().publish(N.game_event("g1", subjects.GAME_ENDED), b"end",
                                         headers={"Nats-Msg-Id": "g1:1"})
    assert ack.seq == 1
    for service, durable in (("ratings", subjects.RATINGS_RESULTS),
                             ("tournaments", subjects.TOURNAMENTS_RESULTS),
                             ("lobby", subjects.LOBBY_GAMES_ENDED)):
        nc, errors = await _as(service, server)
        client = BusClient(nc)
        js = client.js
        await bus.ensure_stream(client, spec)
        await bus.ensure_consumer(client, bus.ConsumerSpec(
            N.game_events_stream, durable, N.game_events_of_type(subjects.GAME_ENDED),
            ack_wait=5, max_deliver=3))
        pull = await js.pull_subscribe_bind(durable, N.game_events_stream)
        msgs = await pull.fetch(1, timeout=5)
        assert msgs[0].data == b"end", service
        await msgs[0].ack_sync()
        if service != "lobby":  # and no forged event gets in
            with pytest.raises((nats.errors.TimeoutError, nats.errors.NoRespondersError)):
                await js.publish(N.game_event("g2", subjects.GAME_ENDED), b"forged",
                                 timeout=1)
            assert any("permissions violation" in str(e).lower() for e in errors), service
        await nc.close()
    info = await game.jetstream().stream_info(N.game_events_stream)
    assert info.state.messages == 1
    await game.close()


async def test_only_the_tournament_service_writes_tournament_events(server: str) -> None:
    tournaments, _ = await _as("tournaments", server)
    spec = bus.StreamSpec(N.tournament_events_stream, (N.tournament_events_all,),
                          duplicate_window=60)
    await bus.ensure_stream(BusClient(tournaments), spec)
    ack = await tournaments.jetstream().publish(
        N.tournament_event("tournament-t1", "RoundPaired"), b"paired",
        headers={"Nats-Msg-Id": "tournament-t1:1"})
    assert ack.seq == 1
    for service in ("lobby", "game", "ratings"):
        nc, errors = await _as(service, server)
        await nc.publish(N.tournament_event("tournament-t1", "MatchResult"), b"forged")
        await nc.flush()
        await asyncio.sleep(0.2)
        assert any("permissions violation" in str(e).lower() for e in errors), service
        await nc.close()
    info = await tournaments.jetstream().stream_info(N.tournament_events_stream)
    assert info.state.messages == 1
    await tournaments.close()


async def test_the_lobby_finds_the_services_by_the_services_api_discovery(server: str) -> None:
    from schemas.bus import StatusReply, StatusRequest
    from services.platform.busclient import BusClient

    ratings, _ = await _as("ratings", server)

    async def status(req: StatusRequest) -> StatusReply:
        return StatusReply(service="ratings", instance="r1", version="0", echo=req.echo)

    svc = await bus.serve(ratings, service="ratings", version="0.1.0",
                          group=N.service_group("ratings"), instance="r1",
                          endpoints=[bus.Endpoint("status", StatusRequest, status)])
    lobby, errors = await _as("lobby", server)
    found = await BusClient(lobby).instances(0.5)
    assert [(i.name, i.metadata) for i in found] == [
        ("ratings", {"group": N.service_group("ratings"), "instance": "r1"})]
    assert not errors
    await svc.stop()
    await lobby.close()
    await ratings.close()
