"""The restore drill an operator runs, through the public API only.

`SPADES_DEV_PG_STANDBY=1 spades dev` with ``SPADES_BACKUP_DIR`` set (its WAL archived
as it is written) and a full backup taken; a rated match played out and a four-team cup
played to its champion; an incremental backup; then, at a moment between two games,
every document a client can read is recorded: each GET route of the lobby's OpenAPI
document, for each id it takes (every player, game, table, match and tournament of the
drill, and any fair-play case), as each of four people (a ranked player, a cup player,
the organizer and an operator). After the moment a second rated match, a new account
and a new tournament.
The platform is stopped, `spades restore --to MOMENT --data-dir NEW` rebuilds the
database as it was, `SPADES_DATA_DIR=NEW spades dev` starts on it (on a JetStream of its
own, as on a new machine) and `spades resync` brings JetStream in line. Every document
then reads as it was recorded, field for field but for the fields named in ``IGNORED``
(none): nothing from after the moment shows anywhere, nothing from before it is
missing, and every restored game verifies. The leaderboard is compared on its own
too: as recorded, and again, with every other document the ratings make (``RATED``),
after `spades ratings rebuild` has rated the restored games anew (then only the rating
history's row numbers, ``REBUILT``, may differ). The routes not compared are named,
with why, in ``SKIPPED``."""

from __future__ import annotations

import asyncio
import itertools
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from schemas.matches import lobby_match_id
from services.platform import servers
from tests.e2e.ranked import QUEUE_ENV, Queuer, close_all
from tests.e2e.replays import registered
from tests.e2e.test_tournament_run import NEXT_CUP, window
from tests.services.devcup import Cup, play_seat
from tests.services.lobby import test_tournaments as accounts
from tests.services.lobby.harness import Player
from tests.services.test_dev import (
    cli,
    dev_env,
    ports,
    spades_logged,
    wait_for_line,
    wal_archived,
)
from tests.waiting import until

__all__ = ["ports"]

# Fields that legitimately differ between two reads of the same state, by name wherever
# they occur, and why. Nothing else may differ.
IGNORED: dict[str, str] = {}  # none: the restored platform reads exactly as it did
# After `spades ratings rebuild` rated the games anew, beside those: only within a
# player's rating history.
REBUILT = {"id": "the history row's number, the page cursor: a rebuild writes the rows "
                 "anew, numbered on from the last"}
# The routes whose documents the ratings make.
RATED = ("/v1/leaderboard", "/v1/players/")
# Routes of the OpenAPI document not compared, and why.
SKIPPED = {
    "/api/v1/platform": "which service copies answer on the bus now, not a stored fact",
}
# Query strings each route is read with (a route not named: none).
QUERIES: dict[str, list[dict[str, str]]] = {
    "/v1/leaderboard": [{}, {"provisional": "true"}],
    "/v1/games/{game_id}/replay/state": [{"at": "1"}, {"at": "30"}],
    "/v1/admin/games/{game_id}/state": [{"at": "1"}, {"at": "30"}],
    "/v1/players": [{"name": "Ranked0"}],
    "/v1/tournaments": [{}],
}
PARAMS = ("player_id", "game_id", "table_id", "match_id", "tournament_id", "case_id")


async def operator(base: str, database_url: str) -> Player:
    """A registered account made an operator (`spades operator grant`), signed in anew."""
    who = await accounts.registered(base, "op")
    done = await asyncio.to_thread(accounts.role, database_url, "operator", "grant", who.name)
    assert done.returncode == 0, done.stderr
    return await accounts.signed_in_again(who)


def stripped(doc: Any, ignored: dict[str, str] = IGNORED) -> Any:
    if isinstance(doc, dict):
        return {k: stripped(v, ignored) for k, v in doc.items() if k not in ignored}
    if isinstance(doc, list):
        return [stripped(v, ignored) for v in doc]
    return doc


def rebuilt(docs: dict[str, tuple[int, Any]]) -> dict[str, tuple[int, Any]]:
    """The documents less what a ratings rebuild may write anew (``REBUILT``)."""
    return {k: (status, stripped(body, REBUILT) if "/ratings " in k else body)
            for k, (status, body) in docs.items()}


async def documents(base: str, viewers: list[Player], ids: dict[str, list[str]],
                    routes: tuple[str, ...] = ("/",)) -> dict[str, tuple[int, Any]]:
    """Every document the lobby's GET routes (those starting with one of ``routes``)
    give these people for these ids: by route, viewer and URL, its status and body
    (less ``IGNORED``)."""
    async with httpx.AsyncClient(base_url=base, timeout=20) as http:
        schema = (await http.get("/schema/openapi.json")).json()
        urls: list[tuple[str, str]] = []
        for path, ops in schema["paths"].items():
            if ("get" not in ops or any(path.startswith(s) for s in SKIPPED)
                    or not path.startswith(routes)):
                continue
            names = [n for n in PARAMS if f"{{{n}}}" in path]
            assert path.count("{") == len(names), f"no ids for {path}"
            for values in itertools.product(*(ids[n] for n in names)):
                url = path
                for n, v in zip(names, values, strict=True):
                    url = url.replace(f"{{{n}}}", v)
                urls += [(path, url + ("?" + "&".join(f"{k}={v}" for k, v in q.items())
                                       if q else "")) for q in QUERIES.get(path, [{}])]
        gate = asyncio.Semaphore(8)

        async def read(who: Player, path: str, url: str) -> tuple[str, tuple[int, Any]]:
            async with gate:
                r = await http.get(url, headers={"authorization": f"Bearer {who.token}"})
            body = r.json() if "json" in r.headers.get("content-type", "") else r.text
            return f"{path} {who.name} {url}", (r.status_code, stripped(body))

        return dict(await asyncio.gather(*(read(w, *u) for w in viewers for u in urls)))


def differences(got: dict[str, tuple[int, Any]], want: dict[str, tuple[int, Any]]
                ) -> list[str]:
    return [f"{k}: {got.get(k)!r:.600} != {want.get(k)!r:.600}"
            for k in sorted(set(got) | set(want)) if got.get(k) != want.get(k)]


async def ranked_match(queuers: list[Queuer], ws_url: str) -> tuple[str, str]:
    """A rated match of these four, from the queue to the game's end: (match, game)."""
    for q in queuers:
        await q.join()
    offers = [await q.note("match_found", 30) for q in queuers]
    for q, offer in zip(queuers, offers, strict=True):
        await q.sock.send({"type": "queue_accept", "match_id": offer["match_id"]})
    started = [await q.note("match_started", 30) for q in queuers]
    game_id = started[0]["game_id"]
    assert started[0]["rated"]
    await asyncio.gather(*(play_seat(q.player, ws_url, game_id) for q in queuers))
    return offers[0]["match_id"], game_id


async def test_a_restore_to_a_moment_reads_as_the_clients_saw_it(
        server_folder: Path, ports: dict[str, int], nats_url: str, nats_prefix: str) -> None:
    pg_port = servers.free_ports(2)
    backup = server_folder / "backup"
    env = dev_env(server_folder, ports, NATS_URL=nats_url, SPADES_NATS_PREFIX=f"{nats_prefix}rd",
                  SPADES_DEV_PG_STANDBY="1", SPADES_DEV_PG_PORT=str(pg_port),
                  SPADES_BACKUP_DIR=str(backup), SPADES_BOT_THINK_MS="0",
                  SPADES_LEADERBOARD_FRESH_SECONDS="0.5", **QUEUE_ENV)
    env.pop("SPADES_EPHEMERAL_PG", None)  # the durability spades dev really runs with
    base, ws_url = f"http://127.0.0.1:{ports['lobby']}", f"ws://127.0.0.1:{ports['lobby']}/v1/ws"
    url = (f"postgresql://{servers.PG_USER}@127.0.0.1:{pg_port},127.0.0.1:{pg_port + 1}"
           "/spades?target_session_attrs=read-write")
    proc = spades_logged(server_folder / "dev.log", "dev", env=env)
    cup = Cup(base, url)
    cup.pace = 0
    queuers: list[Queuer] = []
    try:
        wait_for_line(proc, server_folder / "dev.log", "spades dev is up")
        assert "full backup" in await asyncio.to_thread(cli, "backup", env=env)

        async def queuer(i: int) -> Queuer:
            person = await registered(base, f"Ranked{i}")
            return Queuer(person, await person.socket(ws_url))

        opening = asyncio.create_task(cup.open(starts_in=3))
        queuers[:] = await asyncio.gather(*map(queuer, range(4)))
        await opening
        first, _ = await asyncio.gather(ranked_match(queuers, ws_url), cup.finished())
        view = await cup.view()
        games = [first[1], *(m["game_id"] for m in view["matches"])]
        tables = [(await cup.org.ok("GET", f"/v1/games/{g}"))["table_id"] for g in games]
        ids = {"player_id": [q.id for q in queuers] + [p.player_id for p in cup.players],
               "game_id": games, "table_id": tables, "tournament_id": [cup.tid],
               "match_id": [first[0], *(lobby_match_id(cup.tid, m["match_id"])
                                        for m in view["matches"])]}
        op = await operator(base, url)
        await op.aclose()  # its token is all the reads below need
        viewers = [queuers[0].player, cup.players[0], cup.org, op]
        async with httpx.AsyncClient(base_url=base, headers={
                "authorization": f"Bearer {op.token}"}) as http:  # fair play's cases, if any
            ids["case_id"] = [c["case_id"] for c in
                              (await http.get("/v1/admin/fairplay")).json()["cases"]]
        assert "incremental backup" in await asyncio.to_thread(cli, "backup", env=env)

        async def settled() -> dict[str, tuple[int, Any]] | None:
            """What clients read, once two reads a moment apart agree (every projection
            has caught up with the games)."""
            before = await documents(base, viewers, ids)
            await asyncio.sleep(1.5)
            return before if before == await documents(base, viewers, ids) else None

        seen = await until(settled, timeout=60, every=0)
        read = {k.split(" ")[0] for k, (status, _) in seen.items() if status == 200}
        assert read == {k.split(" ")[0] for k in seen}  # each route read something
        moment = datetime.now(UTC)
        assert not differences(await documents(base, viewers, ids), seen)

        # After the moment: a second rated match, a new account, a new tournament.
        late = await ranked_match(queuers, ws_url)
        newcomer = await registered(base, "Late")
        later_cup = (await cup.org.ok("POST", "/v1/tournaments",
                                      {**NEXT_CUP, **window()}))["tournament_id"]
        assert await documents(base, viewers, ids) != seen

        await wal_archived(url, env)
    finally:
        await cup.close()
        await close_all(queuers)
        if proc.poll() is None:
            proc.terminate()
            proc.wait(60)

    restored = server_folder / "restored"
    began = time.monotonic()
    said = await asyncio.to_thread(cli, "restore", "--to", moment.isoformat(),
                                   "--data-dir", str(restored), env=env)
    print(f"spades restore --to MOMENT: {time.monotonic() - began:.1f}s; {said.strip()}")
    again = {**env, "SPADES_DATA_DIR": str(restored), "SPADES_NATS_PREFIX": f"{nats_prefix}rd2"}
    proc = spades_logged(server_folder / "restored.log", "dev", env=again)
    try:
        wait_for_line(proc, server_folder / "restored.log", "spades dev is up", 120)
        print(await asyncio.to_thread(cli, "resync", env=again))

        async def as_seen() -> bool:
            return not differences(await documents(base, viewers, ids), seen)

        try:
            await until(as_seen, timeout=60, every=0.5)
        except AssertionError:
            raise AssertionError("\n".join(differences(await documents(base, viewers, ids),
                                                       seen)[:20])) from None
        # Nothing from after the moment anywhere: not the second match's game, not the
        # new account, not the new tournament.
        # (The same people read as before, still signed in: the secret was restored.)
        async with httpx.AsyncClient(base_url=base, timeout=20, headers={
                "authorization": f"Bearer {viewers[0].token}"}) as reader:
            for path in (f"/v1/games/{late[1]}", f"/v1/games/{late[1]}/replay",
                         f"/v1/tournaments/{later_cup}", f"/v1/players/{newcomer.player_id}"):
                assert (await reader.get(path)).status_code == 404, path
            found = await reader.get("/v1/players", params={"name": newcomer.name})
            assert found.json()["code"] == "player_not_found", found.text
        # Every game restored verifies: its log replays to the same states.
        n = len(games)  # and only those: not the second match's
        assert f"{n} game(s): {n} verified, 0 diverged" in await asyncio.to_thread(
            cli, "replay", "--verify-all", env=again)
        # The leaderboard on its own (and every other document): as recorded, and as a
        # rebuild from the restored games gives it.
        board = sorted(k for k in seen if k.startswith("/v1/leaderboard "))
        assert len(board) == 2 * len(viewers) and all(seen[k][0] == 200 for k in board)
        assert any(e["games"] == 1 for k in board for e in seen[k][1]["entries"])
        now = await documents(base, viewers, ids)
        assert [now[k] for k in board] == [seen[k] for k in board]
        print(await asyncio.to_thread(cli, "ratings", "rebuild", env=again))

        async def as_rebuilt() -> bool:
            """What a rebuild writes anew reads as before: the board, the players'
            pages and rating histories."""
            now = await documents(base, viewers, ids, RATED)
            return not differences(rebuilt(now), rebuilt({k: seen[k] for k in now}))

        await until(as_rebuilt, timeout=60, every=0.5)
    finally:
        if proc.poll() is None:
            proc.terminate()
            proc.wait(60)
