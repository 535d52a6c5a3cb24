"""One writer per game, in one process: a worker whose lease ran out and whose game was
adopted cannot write to it any more (the fencing epoch), and a leaving worker's games
are adopted at once."""

from __future__ import annotations

import time

from engine.presets import CLASSIC
from engine.state import seats_in
from schemas import commands as cmd
from schemas.gamebus import CreateGame, GameRequest
from tests.services.game.conftest import Harness
from tests.waiting import until

PEOPLE = ("ann", "bob", "cy", "di")


async def _owner(h: Harness, game_id: str) -> tuple[str, int] | None:
    row = await h.pool.fetchrow("SELECT holder, epoch FROM leases WHERE name = $1",
                                game_id)
    return None if row is None else (row["holder"], row["epoch"])


async def test_a_worker_whose_game_was_adopted_is_fenced_on_its_next_append(
        harness: Harness) -> None:
    # "stale" never renews (as if paused); "fresh" adopts what runs out.
    stale = await harness.worker(owner="stale", lease_seconds=0.5, heartbeat_seconds=3600)
    fresh = await harness.worker(owner="fresh", lease_seconds=5, heartbeat_seconds=0.1)
    for game_id in ("f1", "f2"):
        created = await stale.create(CreateGame(game_id=game_id, command_id="c", rules=CLASSIC,
                                                players=PEOPLE))
        assert created.ok and await _owner(harness, game_id) == ("stale", 1)

    async def adopted() -> bool:
        owners = [await _owner(harness, g) for g in ("f1", "f2")]
        return owners == [("fresh", 2)] * 2 and {"f1", "f2"} <= fresh.actors.keys()
    await until(adopted)
    # A refusal is a decision too: the stale worker may not record one either.
    f2 = await harness.state("f2")
    wrong = GameRequest(game_id="f2", command_id="wrong", command=cmd.PlaceBid(
        seat=(seats_in(f2.waiting)[0] + 1) % 4, bid=3))
    assert (await stale.command(wrong)).code == "not_owner"
    assert await harness.pool.fetchval("SELECT count(*) FROM refused_commands") == 0
    state = await harness.state("f1")
    seat = seats_in(state.waiting)[0]
    bid = GameRequest(game_id="f1", command_id="late", command=cmd.PlaceBid(seat=seat, bid=3))
    refused = await stale.command(bid)
    assert (refused.ok, refused.code) == (False, "not_owner")
    assert (await harness.state("f1")).version == state.version  # nothing written

    async def dropped() -> bool:
        return "f1" not in stale.actors
    await until(dropped)
    # The same command, sent again, is applied once by the owner.
    reply = await harness.send("f1", bid.command, "late")
    assert reply.ok and reply.version == state.version + 1


async def test_a_stopping_worker_hands_its_games_over_without_waiting_for_the_lease(
        harness: Harness) -> None:
    leaving = await harness.worker(owner="leaving", lease_seconds=60)
    staying = await harness.worker(owner="staying", lease_seconds=60, heartbeat_seconds=30)
    for n in range(3):
        await leaving.create(CreateGame(game_id=f"h{n}", command_id=f"c{n}", rules=CLASSIC,
                                        players=PEOPLE))
    started = time.monotonic()
    await leaving.stop()

    async def all_adopted() -> bool:
        return all(f"h{n}" in staying.actors for n in range(3))
    await until(all_adopted, timeout=5)
    assert time.monotonic() - started < 3  # far less than the 60 s lease or 30 s heartbeat
    assert [await _owner(harness, f"h{n}") for n in range(3)] == [("staying", 2)] * 3
    state = await harness.state("h0")
    seat = seats_in(state.waiting)[0]
    assert (await harness.send("h0", cmd.PlaceBid(seat=seat, bid=2), "after")).ok
