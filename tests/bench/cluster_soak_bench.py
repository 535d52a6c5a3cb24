"""A tournament round on a three-node NATS cluster that loses two nodes in turn.

The longer companion of ``tests/services/game/test_cluster_failover.py``: the whole
platform (a lobby gateway, two game workers, the tournament and ratings services)
on a NATS cluster of its own with every stream replicated three times, and a
four-team single elimination played by scripted registered players through the
lobby (ready check, WebSocket, every card). While the first round's games are in
play, the node leading the game events stream is killed outright and started again
five seconds later; then the node leading the JetStream meta group the same way.
The cup must finish with one champion, three results each counted once, every
tournament game stored once and verifying against the engine. Prints what it saw
and how long the cup took; asserts what must hold, as a soak does, and stops
itself at a time cap.

    python -m tests.bench cluster_soak_bench
"""

from __future__ import annotations

import asyncio
import functools
import shutil
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import asyncpg

from engine.replay import verify
from schemas.subjects import Names
from services import catalog
from services.platform import dbadmin, migrations, servers
from services.platform.events import game_registry
from services.platform.eventstore import EventStore
from tests.bench.servers import bench_cluster, bench_servers
from tests.e2e.test_tournament_run import FAST, attend, dismiss, four_team_cup
from tests.services.game.cluster_play import connect_quietly, kill_leader
from tests.services.lobby.harness import Service, lobby_env, start
from tests.services.lobby.test_tournaments import organizer, registered
from tests.waiting import until

DOWN_SECONDS = 5.0
CAP_SECONDS = 300.0


async def soak(db_url: str, cluster: servers.NatsCluster) -> None:
    name = f"spades_soak_{uuid.uuid4().hex[:8]}"
    url = await dbadmin.ensure_database(db_url, name)
    conn = await asyncpg.connect(url)
    await migrations.apply(conn, catalog.all_migrations())
    prefix = f"soak{uuid.uuid4().hex[:6]}"
    names = Names(prefix)
    logs = Path(tempfile.mkdtemp(prefix="spades-soak-"))
    env = lobby_env(url, cluster.url, prefix, SPADES_LOG_LEVEL="warning", SPADES_JS_REPLICAS="3")
    procs: list[Service] = []
    attending: list[asyncio.Task[None]] = []
    nc = await connect_quietly(cluster)
    started = time.monotonic()
    try:
        loop = asyncio.get_running_loop()
        for service, extra in (("game", {"SPADES_BOT_THINK_MS": "0"}),
                               ("game", {"SPADES_BOT_THINK_MS": "0"}),
                               ("ratings", {}),
                               ("tournaments", {"SPADES_TIMER_POLL_SECONDS": "0.2",
                                                "SPADES_JS_ACK_WAIT_SECONDS": "3"}),
                               ("lobby", {"SPADES_DISCONNECT_GRACE_SECONDS": "1"})):
            log = logs / f"{service}-{len(procs)}.log"
            procs.append(await loop.run_in_executor(
                None, functools.partial(start, service, log, None, **env, **extra)))
        lobby = procs[-1]
        org = await organizer(lobby, url)
        players = [await registered(lobby.url) for _ in range(8)]
        attending = [asyncio.create_task(attend(p, lobby)) for p in players]
        tid = await four_team_cup(org, players, FAST, 8_000)
        print(f"four-team cup {tid} on a {len(cluster.nodes)}-node cluster, every stream with"
              " three replicas; 8 scripted players, a lobby, two workers, tournaments,"
              " ratings", flush=True)

        async def round_playing() -> bool:
            return bool(await conn.fetchval(
                "SELECT count(*) FROM game.events WHERE type = 'CardPlayed' AND stream IN"
                " (SELECT game_id FROM lobby.matches WHERE origin_id = $1)", tid))
        await until(round_playing, timeout=120, every=0.2)
        js = nc.jetstream()
        for which in ("stream", "meta"):
            out = await kill_leader(cluster, js, names.game_events_stream, which,
                                    DOWN_SECONDS)
            what = "the game events stream's" if which == "stream" else "the meta group's"
            print(f"  {what} leader {out.leader} killed, back {DOWN_SECONDS:.0f} s later,"
                  f" every replica current {out.caught_up:.1f} s after the kill", flush=True)

        async def finished() -> dict[str, Any] | None:
            v: dict[str, Any] = await org.ok("GET", f"/v1/tournaments/{tid}")
            return v if v["summary"]["status"] == "finished" else None
        view = await until(finished, timeout=CAP_SECONDS, every=0.5)
        matches = {m["match_id"]: m for m in view["matches"]}
        assert sorted(matches) == ["W1-1", "W1-2", "W2-1"], sorted(matches)
        assert all(m["reason"] == "played" for m in matches.values()), matches
        games = [r["game_id"] for r in await conn.fetch(
            "SELECT game_id FROM lobby.matches WHERE origin_id = $1", tid)]
        pool = await asyncpg.create_pool(url, server_settings={"search_path": "game"})
        assert pool is not None
        try:
            store = EventStore(pool, game_registry())
            for g in games:
                events = [r.event for r in await store.read(g)]
                assert verify(events) is None, g  # type: ignore[arg-type]
            stored = await conn.fetchval("SELECT count(*) FROM game.events"
                                         " WHERE stream = ANY($1::text[])", games)
        finally:
            await pool.close()
        results = await conn.fetchval(
            "SELECT count(*) FROM tournaments.events WHERE stream = $1 AND type ="
            " 'MatchResult'", f"tournament-{tid}")
        assert results == 3, results
        print(f"  finished in {time.monotonic() - started:.0f} s: champion"
              f" {view['summary']['champion']}, 3 results counted once, {len(games)} games"
              f" ({stored} events) each verifying", flush=True)
    finally:
        await dismiss(attending)
        await nc.close()
        for p in reversed(procs):
            await asyncio.get_running_loop().run_in_executor(None, p.stop)
        await conn.close()
        await dbadmin.drop(db_url, name)
        shutil.rmtree(logs, ignore_errors=True)


def main() -> None:
    with bench_servers() as (db_url, _), bench_cluster() as cluster:
        asyncio.run(soak(db_url, cluster))


if __name__ == "__main__":
    main()
