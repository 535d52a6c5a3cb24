"""The short version of ``rolling_bench``: every copy of every service (two lobby copies,
two game workers, ratings, tournaments) restarted one at a time, SIGTERM then the new
process, while four people play: no command failed, no game lost, every game verifies,
and the people's sockets moved and resumed."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

from tests.e2e.rolling import Tally, deployment, person, roll, unverified


async def test_every_service_restarted_under_play_loses_no_command_and_no_game(
        tmp_path: Path, database_url: str, nats_url: str, nats_prefix: str) -> None:
    tally, done = Tally(), asyncio.Event()
    with deployment(tmp_path, database_url, nats_url,
                    f"{nats_prefix}ro{uuid.uuid4().hex[:4]}") as d:
        people = [asyncio.create_task(person(d, f"Rollo{i}", (0.05, 0.3), done, tally, i))
                  for i in range(4)]
        await asyncio.sleep(2)  # play under way before the first restart
        took = await roll(d, gap=0.5)
        done.set()
        await asyncio.wait_for(asyncio.gather(*people), 300)
    assert sorted(took) == ["game-0", "game-1", "lobby-0", "lobby-1", "ratings-0",
                            "tournaments-0"]
    assert tally.failed == [] and tally.unfinished == []
    assert len(tally.games) >= 4
    assert await unverified(database_url, tally.games) == []
    assert tally.resumes >= 1  # the lobby copies' restarts really moved the people's sockets
