"""One change that adds a field to an event, rolled through a running platform with games
in play (``tests/compat/nextversion.py``: ``TrickWon`` version 2 names the winning card).

Two game workers run today's code, and two lobby copies: one of today's, one of the next
version's, while four people play. Then the workers are restarted on the next version's
code, one at a time: for a while one worker writes version 2 tricks and the other
version 1; the second is restarted while it holds a game early in its tricks, which the
new worker adopts and plays on from its old events. Throughout, an old gateway folds and
delivers new events and a new one old events. Nothing a person sent failed, no game was
lost, every game verifies by the engine's verification under both versions, the adopted
game holds both versions of the event, and no service logged an error."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path

import asyncpg

from tests.compat import nextversion
from tests.e2e.rolling import Tally, deployment, person, unverified
from tests.services.lobby.harness import ROOT
from tests.waiting import until


async def test_a_new_event_field_rolls_through_a_running_platform(
        tmp_path: Path, make_database: Callable[[], Awaitable[str]], nats_url: str,
        nats_prefix: str) -> None:
    # A database of its own: the workers of other tests' deployments bore the same names,
    # and their games left in a shared one were taken for this deployment's.
    database_url = await make_database()
    new = nextversion.build(tmp_path / "next")
    logs = tmp_path / "logs"
    logs.mkdir()
    tally, done = Tally(), asyncio.Event()
    with deployment(logs, database_url, nats_url, f"{nats_prefix}nv{uuid.uuid4().hex[:4]}",
                    shape=(("game", 2), ("lobby", 2)), roots={("lobby", 1): new}) as d:
        people = [asyncio.create_task(person(d, f"Skew{i}", (0.1, 0.3), done, tally, i))
                  for i in range(4)]
        await asyncio.sleep(1.5)  # every game under way on today's code
        await asyncio.to_thread(d.restart, "game", 0, new)
        await asyncio.sleep(1.0)  # play on with both versions writing
        # The old worker is restarted while it holds a game early in its tricks: the new
        # worker adopts it and goes on from its old events.
        spanning = await _early_in_play(database_url, d.copies["game"][1].log.stem)
        await asyncio.to_thread(d.restart, "game", 1, new)
        # Play goes on until the adopted game has a trick of the new version (its person's
        # move may be one the old worker took down with it, sent again after a wait).
        await _until_tricks_of_both(database_url, spanning)
        done.set()
        await asyncio.wait_for(asyncio.gather(*people), 120)
    assert tally.failed == [] and tally.unfinished == []
    assert len(tally.games) >= 4
    assert await unverified(database_url, tally.games) == []  # today's code reads them all
    assert _verified_by(new, database_url, tally.games)  # and so does the next version's
    assert spanning in await _games_with_both_versions(database_url, tally.games)
    assert _errors(logs) == []


def _verified_by(tree: Path, database_url: str, game_ids: list[str]) -> bool:
    env = {**os.environ, "PYTHONPATH": f"{tree}{os.pathsep}{ROOT}", "DATABASE_URL": database_url}
    done = subprocess.run([sys.executable, "-m", "tests.compat.nextversion", *game_ids],
                          env=env, cwd=tree, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout.startswith("TrickWon v2:")


async def _early_in_play(database_url: str, holder: str) -> str:
    """A game ``holder`` owns with one to three tricks won: ten or more to go."""
    conn = await asyncpg.connect(database_url)
    try:
        for _ in range(200):
            found = await conn.fetchval(
                "SELECT l.name FROM game.leases l JOIN game.events e ON e.stream = l.name "
                "WHERE l.holder = $1 GROUP BY l.name HAVING count(*) FILTER (WHERE e.type ="
                " 'TrickWon') BETWEEN 1 AND 3 AND count(*) FILTER (WHERE e.type = "
                "'GameEnded') = 0 LIMIT 1", holder)
            if found:
                return str(found)
            await asyncio.sleep(0.05)
    finally:
        await conn.close()
    raise AssertionError(f"{holder} held no game early in its tricks")


async def _until_tricks_of_both(database_url: str, game_id: str, timeout: float = 60) -> None:
    async def both() -> bool:
        return game_id in await _games_with_both_versions(database_url, [game_id])

    await until(both, timeout=timeout, every=0.1)


async def _games_with_both_versions(database_url: str, game_ids: list[str]) -> list[str]:
    conn = await asyncpg.connect(database_url)
    try:
        rows = await conn.fetch(
            "SELECT stream FROM game.events WHERE type = 'TrickWon' AND stream = ANY($1) "
            "GROUP BY stream HAVING count(DISTINCT schema_version) = 2", game_ids)
    finally:
        await conn.close()
    return [r["stream"] for r in rows]


def _errors(logs: Path) -> list[str]:
    """Every log line at level error or above, or naming a version it could not read."""
    out = []
    for log in sorted(logs.glob("*.log")):
        for line in log.read_text().splitlines():
            try:
                entry = json.loads(line)
            except ValueError:
                if "Traceback" in line:
                    out.append(f"{log.name}: {line}")
                continue
            if not isinstance(entry, dict):
                continue
            if entry.get("level") in ("error", "critical", "exception") \
                    or entry.get("event") == "unreadable_version":
                out.append(f"{log.name}: {line[:300]}")
    return out
