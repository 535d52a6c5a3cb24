"""A worker writes the commands of all its games that arrive together in one transaction;
one game's fenced owner, conflict or illegal move never touches another game's command."""

from __future__ import annotations

import asyncio

from engine.decide import step
from engine.presets import CLASSIC
from engine.state import seats_in
from schemas import commands as cmd
from tests.services.game.conftest import Harness

PEOPLE = ("ann", "bob", "cy", "di")


async def test_one_games_fence_conflict_or_illegal_move_never_fails_the_others_in_its_batch(
        harness: Harness) -> None:
    # A long window, so every command below lands in one batch; no heartbeat, so the
    # worker learns it lost a game only from the store's answer.
    worker = await harness.worker(group_commit_ms=500, heartbeat_seconds=3600)
    games = ("ok1", "ok2", "fenced", "conflict", "illegal")
    for game_id in games:
        assert (await harness.create(game_id, CLASSIC, PEOPLE)).ok
    states = {g: await harness.state(g) for g in games}
    seat = {g: seats_in(s.waiting)[0] for g, s in states.items()}
    # Another worker adopted "fenced": its epoch moved on.
    await harness.pool.execute(
        "UPDATE leases SET epoch = epoch + 1, holder = 'other' WHERE name = 'fenced'")
    # A writer outside the worker protocol moved "conflict" on.
    _, outside = step(states["conflict"], cmd.PlaceBid(seat=seat["conflict"], bid=1, at=1))
    await harness.events.append("conflict", states["conflict"].version, outside)
    batches = worker.appends.batches

    replies = await asyncio.gather(*(
        harness.send(g, cmd.PlaceBid(seat=seat[g] if g != "illegal" else (seat[g] + 1) % 4,
                                     bid=3), f"bid-{g}", PEOPLE[seat[g]])
        for g in games))
    answer = dict(zip(games, replies, strict=True))

    assert answer["ok1"].ok and answer["ok2"].ok
    assert answer["fenced"].code == "not_owner"
    assert answer["conflict"].code == "conflict"
    assert answer["illegal"].code == "not_your_turn"
    assert worker.appends.batches == batches + 1  # ok1, ok2, fenced and conflict together
    for g in ("ok1", "ok2"):
        assert (await harness.state(g)).version == states[g].version + 1
    assert (await harness.state("fenced")).version == states["fenced"].version
    assert (await harness.state("illegal")).version == states["illegal"].version
    assert (await harness.state("conflict")).version == states["conflict"].version + 1
    txs = await harness.pool.fetch(
        "SELECT DISTINCT tx_id FROM events WHERE stream = ANY($1::text[]) AND version = $2",
        ["ok1", "ok2"], states["ok1"].version + 1)
    assert len(txs) == 1
    # The conflicted game reloaded the truth and takes the next seat's bid.
    nxt = (seat["conflict"] + 1) % 4
    again = await harness.send("conflict", cmd.PlaceBid(seat=nxt, bid=2), "next",
                               PEOPLE[nxt])
    assert again.ok
