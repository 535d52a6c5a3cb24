"""Operators replay stored games: `spades replay GAME_ID`, exports, `--verify-all`."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import msgspec

from engine.presets import PRESETS
from engine.records import judge
from engine.state import OVER
from schemas import events as ev
from tests.services.game.conftest import Harness
from tests.waiting import until

BOTS = ("bot:basic",) * 4


def spades(db: str, *args: str) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "DATABASE_URL": db}
    return subprocess.run([sys.executable, "-c", "from services.cli import main; main()", *args],
                          capture_output=True, timeout=120, env=env)


async def _finished_game(harness: Harness, game_id: str) -> list[ev.Event]:
    await harness.worker()
    assert (await harness.create(game_id, PRESETS["quick"], BOTS, rated=False)).ok

    async def over() -> bool:
        return (await harness.state(game_id)).phase == OVER
    await until(over, timeout=60)
    return await harness.stored(game_id)


async def test_replay_of_a_stored_game_verifies_and_exports(harness: Harness,
                                                            game_db: str) -> None:
    stored = await _finished_game(harness, "op1")
    done = spades(game_db, "replay", "op1")
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode().strip().splitlines()[-1].startswith(
        f"verified: {len(stored)} events")

    exported = spades(game_db, "events", "export", "op1")
    assert exported.returncode == 0, exported.stderr
    lines = exported.stdout.splitlines()
    assert len(lines) == len(stored)
    assert json.loads(lines[0])["event"]["type"] == "GameStarted"

    records = spades(game_db, "record", "export", "op1")
    assert records.returncode == 0, records.stderr
    hands = [json.loads(x) for x in records.stdout.splitlines()]
    scored = [e for e in stored if isinstance(e, ev.HandScored)]
    assert len(hands) == len(scored) >= 4
    assert [judge(h)["score_delta"] for h in hands] == [[t.delta for t in s.teams]
                                                        for s in scored]


async def test_verify_all_finds_a_game_the_engine_disagrees_with(harness: Harness,
                                                                 game_db: str) -> None:
    await _finished_game(harness, "op2")
    stored = await _finished_game(harness, "op3")
    i = next(i for i, e in enumerate(stored) if isinstance(e, ev.HandScored))
    changed = msgspec.structs.replace(stored[i], tricks=(13, 0, 0, 0))
    await harness.pool.execute(
        "UPDATE events SET body = $1 WHERE stream = 'op3' AND version = $2",
        msgspec.msgpack.encode(changed), i + 1)
    done = spades(game_db, "replay", "--verify-all")
    assert done.returncode == 2
    out = done.stdout.decode()
    assert "op3: DIVERGES at event" in out and "op2:" not in out
    assert out.strip().splitlines()[-1] == "2 game(s): 1 verified, 1 diverged"


def test_replay_of_an_unknown_game_is_one_line(game_db: str) -> None:
    done = spades(game_db, "replay", "nope")
    assert done.returncode == 1
    assert done.stderr.decode() == "spades: no game 'nope' in the event store\n"
