"""`spades dev` end to end: four service processes, the public API, events to ratings."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from schemas.events import GameEnded
from services import catalog
from services.platform import servers, version
from services.platform.events import game_registry
from services.platform.eventstore import EventStore

ROOT = Path(__file__).resolve().parents[2]


def http(method: str, url: str, body: object = None) -> tuple[int, Any]:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method,
                                 headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=5) as answer:
            raw = answer.read()
            kind = answer.headers.get("content-type", "")
            return answer.status, json.loads(raw) if "json" in kind else raw.decode()
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read() or b"null")


def dev_env(tmp_path: Path, ports: dict[str, int], **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("DATABASE_URL", "NATS_URL", "SPADES_FAULT")}
    env.update({f"SPADES_DEV_{name.upper()}_PORT": str(port) for name, port in ports.items()})
    env.update({"SPADES_DATA_DIR": str(tmp_path / "data"), "PYTHONPATH": str(ROOT), **extra})
    return env


def spades(*args: str, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "services.cli", *args], env=env, cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def spades_logged(log: Path, *args: str, env: dict[str, str]) -> subprocess.Popen[str]:
    """Output to a file: the services inherit it, so a pipe would stay open after exit."""
    with open(log, "w") as out:
        return subprocess.Popen([sys.executable, "-m", "services.cli", *args], env=env,
                                cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, text=True)


def cli(*args: str, env: dict[str, str]) -> str:
    """A `spades` command run to its end beside a running `spades dev`: its output."""
    done = subprocess.run([sys.executable, "-m", "services.cli", *args], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


async def wal_archived(url: str, env: dict[str, str]) -> None:
    """Wait until the WAL archive of `spades dev` holds every byte written before now
    (writes go on meanwhile: the archive is measured against now, not against later);
    the archiver's own log tells why when it does not."""
    from services.platform.servers.backups import ARCHIVER
    from services.platform.servers.tools import query
    from tests.waiting import until

    target = query(url, "SELECT pg_current_wal_lsn()")[0]

    async def past() -> bool:
        return query(url, f"SELECT flush_lsn >= '{target}'::pg_lsn FROM pg_stat_replication "
                          f"WHERE application_name = '{ARCHIVER}'") == ["t"]

    try:
        await until(past, timeout=60, every=0.2)
    except AssertionError as exc:
        log = Path(env["SPADES_BACKUP_DIR"]) / "pg_receivewal.log"
        said = log.read_text(errors="replace")[-2000:] if log.exists() else "(no log)"
        raise AssertionError(f"{exc}; the archiver said:\n{said}") from None


def wait_for_line(proc: subprocess.Popen[str], log: Path, text: str,
                  timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if text in log.read_text():
            return
        if proc.poll() is not None:
            break
        time.sleep(0.1)
    raise AssertionError(f"never printed {text!r}:\n{log.read_text()[-3000:]}")


@pytest.fixture
def ports() -> dict[str, int]:
    return {name: servers.free_port() for name in ("lobby", "game", "ratings", "tournaments")}


@pytest.fixture
def platform(tmp_path: Path, ports: dict[str, int], database_url: str, nats_url: str,
             nats_prefix: str) -> Iterator[tuple[subprocess.Popen[str], dict[str, str]]]:
    env = dev_env(tmp_path, ports, DATABASE_URL=database_url, NATS_URL=nats_url,
                  SPADES_NATS_PREFIX=f"{nats_prefix}dev", SPADES_JS_ACK_WAIT_SECONDS="2")
    log = tmp_path / "dev.log"
    proc = spades_logged(log, "dev", env=env)
    try:
        wait_for_line(proc, log, "spades dev is up")
        yield proc, env
    finally:
        if proc.poll() is None:  # SIGTERM, not SIGKILL: it stops its services on the way out
            proc.terminate()
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


async def test_dev_serves_the_api_and_carries_a_finished_game_to_ratings(
        platform: tuple[subprocess.Popen[str], dict[str, str]], ports: dict[str, int],
        database_url: str) -> None:
    proc, env = platform
    lobby = f"http://127.0.0.1:{ports['lobby']}"
    for name, port in ports.items():
        assert http("GET", f"http://127.0.0.1:{port}/healthz") == (
            200, {"status": "ok", "service": name, "version": version()})
        assert http("GET", f"http://127.0.0.1:{port}/readyz")[0] == 200
        status, metrics = http("GET", f"http://127.0.0.1:{port}/metrics")
        assert status == 200 and "python_info" in str(metrics)
    status, schema = http("GET", f"{lobby}/schema/openapi.json")
    assert status == 200 and "/v1/players/{player_id}" in schema["paths"]
    assert "/api/v1/players" not in schema["paths"]
    status, plat = http("GET", f"{lobby}/api/v1/platform")
    assert status == 200
    assert all(s["reachable"] and s["version"] == version() for s in plat["services"])
    assert sorted(s["service"] for s in plat["services"]) == sorted(catalog.SERVICES)

    # The test plays the game worker: it appends a finished game to the game's store.
    pool = await asyncpg.create_pool(database_url, server_settings={"search_path": "game"})
    assert pool is not None
    store = EventStore(pool, game_registry())
    ended = GameEnded(winner=0, reason="target", scores=(500, 200), bags=(0, 0),
                      hands_played=7, players=("a1", "b1", "a2", "b2"), rated=True)
    casual = GameEnded(winner=1, reason="target", scores=(100, 500), bags=(0, 0),
                       hands_played=7, players=("a1", "b1", "a2", "c9"), rated=False)
    await store.append("dev-game-0", 0, [casual], "end-0")
    await store.append("dev-game-1", 0, [ended], "end-1")
    await pool.close()
    conn = await asyncpg.connect(database_url)
    try:
        for _ in range(100):
            rows = await conn.fetch("SELECT player_id, rating FROM ratings.ratings"
                                    " WHERE player_id = ANY($1::text[]) ORDER BY player_id",
                                    ["a1", "a2", "b1", "b2"])
            finished = await conn.fetchval(
                "SELECT count(*) FROM tournaments.consumer_processed WHERE stream = $1",
                "dev-game-1")
            if len(rows) == 4 and finished == 1:
                break
            await asyncio.sleep(0.1)
        assert [(r["player_id"], r["rating"]) for r in rows] == [
            ("a1", 1520), ("a2", 1520), ("b1", 1480), ("b2", 1480)]  # K 40, new players
        assert await conn.fetchval("SELECT count(*) FROM ratings.ratings"
                                   " WHERE player_id = 'c9'") == 0
        assert await conn.fetchval("SELECT count(*) FROM tournaments.consumer_processed"
                                   " WHERE stream = 'dev-game-0'") == 1
    finally:
        await conn.close()

    second = spades("dev", env=env)
    _, err = second.communicate(timeout=30)
    assert second.returncode == 1
    assert err.strip().splitlines() == [err.strip()]
    assert "already running" in err

    proc.send_signal(signal.SIGINT)
    assert proc.wait(30) == 0
    for port in ports.values():
        with socket.socket() as sock:
            assert sock.connect_ex(("127.0.0.1", port)) != 0, "a service outlived spades dev"


def test_dev_names_a_port_in_use_in_one_line(tmp_path: Path, ports: dict[str, int]) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        ports["lobby"] = busy.getsockname()[1]
        proc = spades("dev", env=dev_env(tmp_path, ports))
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 1
    assert err.strip() == f"spades: port {ports['lobby']} (lobby HTTP) is in use"


def test_dev_names_a_port_set_twice_in_one_line(tmp_path: Path, ports: dict[str, int]) -> None:
    """A service's HTTP port inside a NATS cluster's ports would leave that service
    unable to listen: refused before anything starts."""
    base = servers.free_ports(3)
    ports["game"] = base + 2
    proc = spades("dev", env=dev_env(tmp_path, ports, SPADES_DEV_NATS_NODES="3",
                                     SPADES_DEV_NATS_MONITOR_PORT=str(base)))
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 1
    assert err.strip() == (f"spades: port {base + 2} is set for both game HTTP and "
                           "NATS node 3's monitor")


def test_dev_names_an_unreachable_nats_in_one_line(tmp_path: Path, ports: dict[str, int],
                                                   database_url: str) -> None:
    env = dev_env(tmp_path, ports, DATABASE_URL=database_url, NATS_URL="nats://127.0.0.1:1")
    proc = spades("dev", env=env)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 1
    assert err.strip().startswith("spades: cannot reach NATS at nats://127.0.0.1:1")
    assert len(err.strip().splitlines()) == 1


def test_serve_names_a_bad_setting_in_one_line(database_url: str, nats_url: str) -> None:
    env = {**os.environ, "DATABASE_URL": database_url, "NATS_URL": nats_url,
           "SPADES_HTTP_PORT": "eighty", "PYTHONPATH": str(ROOT)}
    proc = spades("serve", "ratings", env=env)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 1
    assert err.strip() == "spades: setting SPADES_HTTP_PORT is invalid: Expected `int`, got `str`"


def test_serve_names_an_unreachable_database_in_one_line(nats_url: str) -> None:
    env = {**os.environ, "DATABASE_URL": "postgresql://u:secret@127.0.0.1:1/x",
           "NATS_URL": nats_url, "SPADES_HTTP_PORT": str(servers.free_port()),
           "PYTHONPATH": str(ROOT)}
    proc = spades("serve", "lobby", env=env)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 1
    assert err.startswith("spades: cannot reach PostgreSQL at postgresql://u@127.0.0.1:1/x")
    assert "secret" not in err and len(err.strip().splitlines()) == 1


def test_dev_names_a_bad_setting_in_one_line(tmp_path: Path, ports: dict[str, int]) -> None:
    proc = spades("dev", env=dev_env(tmp_path, ports, SPADES_LOG_LEVEL="loud"))
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 1
    assert err.strip().startswith("spades: setting SPADES_LOG_LEVEL is invalid")
    assert len(err.strip().splitlines()) == 1


def _bearer(method: str, url: str, token: str, body: object = None) -> tuple[int, Any]:
    req = urllib.request.Request(url, method=method,
                                 data=json.dumps(body).encode() if body is not None else None,
                                 headers={"authorization": f"Bearer {token}",
                                          "content-type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=5) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read() or b"null")


def test_a_restart_keeps_players_signed_in_and_commands_beside_dev_find_its_database(
        tmp_path: Path, ports: dict[str, int], database_url: str, nats_url: str,
        nats_prefix: str) -> None:
    env = dev_env(tmp_path, ports, DATABASE_URL=database_url, NATS_URL=nats_url,
                  SPADES_NATS_PREFIX=f"{nats_prefix}devr")
    env.pop("SPADES_TOKEN_SECRET", None)
    lobby = f"http://127.0.0.1:{ports['lobby']}"
    beside = {k: v for k, v in env.items() if k != "DATABASE_URL"}
    token = table = ""
    for start in range(2):
        log = tmp_path / f"dev-{start}.log"
        proc = spades_logged(log, "dev", env=env)
        try:
            wait_for_line(proc, log, "spades dev is up")
            if start == 0:
                status, session = http("POST", f"{lobby}/v1/auth/register",
                                       {"name": "Keeper", "password": "long enough pw"})
                assert status == 201
                token = session["token"]
                secret = tmp_path / "data" / "token_secret"
                assert secret.stat().st_mode & 0o777 == 0o600
                status, opened = _bearer("POST", f"{lobby}/v1/tables", token,
                                         {"rules": "quick", "private": True})
                assert status == 201
                table = opened["table_id"]
            status, seen = _bearer("GET", f"{lobby}/v1/tables/{table}", token)
            assert status == 200, seen
            grant = spades("operator", "grant", "Keeper", env=beside)
            out, err = grant.communicate(timeout=30)
            assert (grant.returncode, err) == (0, "")
            assert out.strip() == "Keeper is an operator; sign in again to use it"
        finally:
            proc.terminate()
            proc.wait(30)
    # Once dev has stopped, a command no longer takes its last database for a live one.
    assert not (tmp_path / "data" / "running.json").exists()
    grant = spades("operator", "grant", "Keeper", env=beside)
    _, err = grant.communicate(timeout=30)
    assert grant.returncode == 1 and "DATABASE_URL is required" in err


async def test_dev_starts_a_killed_postgres_again_and_nothing_acknowledged_is_lost(
        server_folder: Path, ports: dict[str, int], nats_url: str, nats_prefix: str) -> None:
    # Its Postgres (run as another user when the tests run as root) keeps its data in a
    # folder of the test's own, which no other pytest run on the machine closes.
    env = dev_env(server_folder, ports, NATS_URL=nats_url,
                  SPADES_NATS_PREFIX=f"{nats_prefix}devpg",
                  SPADES_DEV_PG_PORT=str(servers.free_port()))
    env.pop("SPADES_EPHEMERAL_PG", None)  # the durability spades dev really runs with
    lobby = f"http://127.0.0.1:{ports['lobby']}"
    log = server_folder / "dev.log"
    proc = spades_logged(log, "dev", env=env)
    try:
        wait_for_line(proc, log, "spades dev is up")
        status, session = http("POST", f"{lobby}/v1/auth/guest", {"name": "Survivor"})
        assert status == 201
        token = session["token"]
        status, opened = _bearer("POST", f"{lobby}/v1/tables", token, {"rules": "classic"})
        assert status == 201, opened
        table = opened["table_id"]
        status, started = _bearer("POST", f"{lobby}/v1/tables/{table}/start", token)
        assert status == 200, started
        game = started["game_id"]
        status, before = _bearer("GET", f"{lobby}/v1/games/{game}", token)
        assert status == 200, before

        pidfile = server_folder / "data" / "postgres" / "pgdata" / "postmaster.pid"
        os.kill(int(pidfile.read_text().split()[0]), signal.SIGKILL)
        wait_for_line(proc, log, "PostgreSQL is back", timeout=90)
        deadline = time.monotonic() + 90
        for port in ports.values():  # every service ready again, none restarted
            while http("GET", f"http://127.0.0.1:{port}/readyz")[0] != 200:
                assert time.monotonic() < deadline, f"port {port} never ready again"
                time.sleep(0.2)
        assert proc.poll() is None
        status, seen = _bearer("GET", f"{lobby}/v1/tables/{table}", token)
        assert status == 200 and seen["state"] == "playing"
        status, after = _bearer("GET", f"{lobby}/v1/games/{game}", token)
        assert status == 200 and after["version"] >= before["version"]
        # A new table (the guest hosts it without a seat: it is playing one game).
        status, _ = _bearer("POST", f"{lobby}/v1/tables", token,
                            {"rules": "house", "seat": None})
        assert status == 201
    finally:
        proc.terminate()
        proc.wait(60)


def _free_runs(count: int, width: int, besides: Iterable[int]) -> list[int]:
    """``count`` base ports, each the first of ``width`` free consecutive ports below the
    kernel's ephemeral range (``servers.free_ports``), the runs overlapping neither each
    other nor the ports ``besides`` (the services' own, chosen free as well)."""
    bases: list[int] = []
    taken = set(besides)
    while len(bases) < count:
        base = servers.free_ports(width)
        run = set(range(base, base + width))
        if not any(abs(base - b) < width for b in bases) and not run & taken:
            bases.append(base)
    return bases


def _pid_listening_on(port: int) -> int:
    """The nats-server that was started with ``-p port`` (spades dev keeps no pid file)."""
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            args = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if args and args[0].endswith(b"nats-server") and b"-p" in args \
                and args[args.index(b"-p") + 1] == str(port).encode():
            return int(proc.name)
    raise AssertionError(f"no nats-server on port {port}")


async def test_dev_with_three_nats_nodes_replicates_every_stream_and_restarts_a_killed_node(
        tmp_path: Path, ports: dict[str, int], database_url: str, nats_prefix: str) -> None:
    import nats as nats_client

    client, monitor, cluster = _free_runs(3, 3, besides=ports.values())
    prefix = f"{nats_prefix}dev3"
    env = dev_env(tmp_path, ports, DATABASE_URL=database_url, SPADES_NATS_PREFIX=prefix,
                  SPADES_DEV_NATS_NODES="3", SPADES_DEV_NATS_PORT=str(client),
                  SPADES_DEV_NATS_MONITOR_PORT=str(monitor),
                  SPADES_DEV_NATS_CLUSTER_PORT=str(cluster))
    lobby = f"http://127.0.0.1:{ports['lobby']}"
    log = tmp_path / "dev.log"
    proc = spades_logged(log, "dev", env=env)
    try:
        wait_for_line(proc, log, "spades dev is up")
        printed = log.read_text()
        for i in range(3):
            assert f"nats://127.0.0.1:{client + i}" in printed
            assert f"http://127.0.0.1:{monitor + i}/jsz" in printed
        assert "every stream with 3 replicas" in printed
        urls = [f"nats://127.0.0.1:{client + i}" for i in range(3)]
        nc = await nats_client.connect(urls)
        try:
            info = await nc.jetstream().stream_info(f"{prefix}_GAME_EVENTS")
            assert info.config.num_replicas == 3
            assert info.cluster is not None and len(info.cluster.replicas or []) == 2
        finally:
            await nc.close()

        os.kill(_pid_listening_on(client + 1), signal.SIGKILL)
        wait_for_line(proc, log, "NATS node n2 is back", timeout=60)
        status, session = http("POST", f"{lobby}/v1/auth/guest", {"name": "Clustered"})
        assert status == 201
        token = session["token"]
        status, opened = _bearer("POST", f"{lobby}/v1/tables", token, {"rules": "classic"})
        assert status == 201
        status, started = _bearer("POST", f"{lobby}/v1/tables/{opened['table_id']}/start",
                                  token)
        assert status == 200, started
        assert proc.poll() is None
    finally:
        proc.terminate()
        proc.wait(60)
