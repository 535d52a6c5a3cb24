"""Clocks as the rules say, on a clock the test holds: the time bank first, then the
bot's move for the seat; and a move at the instant of expiry stored one way only."""

from __future__ import annotations

import asyncio

from msgspec.structs import replace

from engine.presets import CLASSIC
from engine.state import seats_in
from schemas import commands as cmd
from schemas import events as ev
from schemas.gamebus import GameRequest
from schemas.rules import Clocks
from services.game.clock import ManualClock
from tests.services.game.conftest import Harness
from tests.waiting import until

PEOPLE = ("ann", "bob", "cy", "di")
SHORT = Clocks(bid_ms=1000, play_ms=800, single_card_ms=300, bank_blocks=1, bank_block_ms=500)


async def test_an_expired_clock_spends_the_time_bank_then_the_bot_bids_for_the_seat(
        harness: Harness) -> None:
    clock = ManualClock()
    await harness.worker(clock)
    await harness.create("c1", replace(CLASSIC, clocks=SHORT), PEOPLE)
    state = await harness.state("c1")
    seat = seats_in(state.waiting)[0]
    deadline = state.deadlines[seat]
    assert deadline == clock.now_ms() + SHORT.bid_ms

    clock.set(deadline - 1)
    await asyncio.sleep(0.1)
    assert len(await harness.stored("c1")) == 2  # not yet

    clock.set(deadline)

    async def banked() -> ev.Event | None:
        last = (await harness.stored("c1"))[-1]
        return last if isinstance(last, ev.TimeBankUsed) else None
    used = await until(banked)
    assert (used.seat, used.blocks_left, used.deadline) == (seat, 0, deadline + 500)

    clock.set(deadline + 499)
    await asyncio.sleep(0.1)
    assert isinstance((await harness.stored("c1"))[-1], ev.TimeBankUsed)
    clock.set(deadline + 500)

    async def auto_bid() -> ev.Event | None:
        last = (await harness.stored("c1"))[-1]
        return last if isinstance(last, ev.BidPlaced) else None
    bid = await until(auto_bid)
    assert bid.seat == seat and bid.auto
    # The next seat's clock runs from the moment of the bot's bid.
    after = await harness.state("c1")
    assert after.deadlines[(seat + 1) % 4] == deadline + 500 + SHORT.bid_ms


async def test_a_move_at_the_instant_its_clock_expires_is_stored_or_refused_never_both(
        harness: Harness) -> None:
    clock = ManualClock()
    worker = await harness.worker(clock)
    no_bank = replace(CLASSIC, clocks=replace(SHORT, bank_blocks=0))
    outcomes = []
    for i in range(6):
        game_id = f"race{i}"
        await harness.create(game_id, no_bank, PEOPLE)
        state = await harness.state(game_id)
        seat = seats_in(state.waiting)[0]
        move = GameRequest(game_id=game_id, command_id=f"move{i}",
                           command=cmd.PlaceBid(seat=seat, bid=4))
        if i % 2 == 0:  # the move reaches the game's task first
            sent = asyncio.create_task(worker.command(move))
            clock.set(state.deadlines[seat])
        else:  # the clock's expiry reaches it first
            clock.set(state.deadlines[seat])
            sent = asyncio.create_task(worker.command(move))
        reply = await sent

        async def decided(game_id: str = game_id) -> bool:
            return len(await harness.stored(game_id)) >= 3
        await until(decided)
        await asyncio.sleep(0.05)
        bids = [e for e in await harness.stored(game_id)
                if isinstance(e, ev.BidPlaced) and e.seat == seat]
        assert len(bids) == 1
        if reply.ok:
            assert not bids[0].auto and bids[0].bid == 4
        else:
            assert reply.code in ("not_your_turn", "already_bid") and bids[0].auto
        outcomes.append(reply.ok)
        clock.advance(10_000_000)  # let this game's other clocks run out of the way
    assert outcomes == [True, False] * 3


async def test_a_worker_that_adopts_a_game_keeps_its_clocks(harness: Harness) -> None:
    clock = ManualClock()
    first = await harness.worker(clock, owner="first")
    await harness.create("kept", replace(CLASSIC, clocks=replace(SHORT, bank_blocks=0)), PEOPLE)
    state = await harness.state("kept")
    seat = seats_in(state.waiting)[0]
    await first.stop()
    # A deadline further off than the adoption's least window stands as recorded.
    second = await harness.worker(clock, owner="second", adopt_grace_ms=500)

    async def adopted() -> bool:
        return "kept" in second.actors
    await until(adopted)
    clock.set(state.deadlines[seat])  # the deadline stored in the events, not a new one

    async def auto_bid() -> ev.Event | None:
        last = (await harness.stored("kept"))[-1]
        return last if isinstance(last, ev.BidPlaced) else None
    bid = await until(auto_bid)
    assert bid.seat == seat and bid.auto and bid.at == state.deadlines[seat]


async def test_a_clock_that_ran_out_while_no_worker_owned_the_game_restarts_at_adoption(
        harness: Harness) -> None:
    """A worker died and the seat's deadline passed before another adopted the game: the
    seat is not timed out at once but gets ``adopt_grace_ms`` from the adoption, and may
    still make its own move in that window."""
    clock = ManualClock()
    first = await harness.worker(clock, owner="first")
    no_bank = replace(CLASSIC, abandon="forfeit", clocks=replace(SHORT, bank_blocks=0))
    await harness.create("outage", no_bank, PEOPLE)
    await harness.create("outage2", no_bank, PEOPLE)
    state = await harness.state("outage")
    seat = seats_in(state.waiting)[0]
    other = seats_in((await harness.state("outage2")).waiting)[0]
    await first.stop()
    clock.set(state.deadlines[seat] + 3000)  # the outage outlasts the clock
    second = await harness.worker(clock, owner="second", adopt_grace_ms=2000)

    async def adopted() -> bool:
        return {"outage", "outage2"} <= second.actors.keys()
    await until(adopted)
    adopted_at = clock.now_ms()
    await asyncio.sleep(0.2)
    clock.set(adopted_at + 1999)
    await asyncio.sleep(0.2)
    assert len(await harness.stored("outage")) == 2  # no expiry inside the window
    own = await harness.send("outage2", cmd.PlaceBid(seat=other, bid=4), "in-window")
    assert own.ok  # the player on turn may still move
    clock.set(adopted_at + 2000)

    async def timed_out() -> ev.Event | None:
        last = (await harness.stored("outage"))[-1]
        return last if isinstance(last, ev.GameEnded) else None
    ended = await until(timed_out)
    assert ended.forfeited_by == seat and ended.at == adopted_at + 2000


async def test_bots_whose_clocks_ran_out_during_an_outage_play_on_at_adoption(
        harness: Harness) -> None:
    """Four bots under ``abandon: forfeit``; their worker goes away before the first bids
    and the outage outlasts its clock: the adopting worker has it make its own bid at
    once, and nobody forfeits."""
    clock = ManualClock()
    first = await harness.worker(clock, owner="first", bot_think_ms=800)
    hurried = replace(CLASSIC, abandon="forfeit",
                      clocks=Clocks(bid_ms=300, play_ms=300, single_card_ms=300, bank_blocks=0))
    await harness.create("orphans", hurried, ("bot:basic",) * 4)
    seat = seats_in((await harness.state("orphans")).waiting)[0]
    await first.stop()
    clock.advance(10_000)
    await harness.worker(clock, owner="second", bot_think_ms=800)

    async def moved() -> ev.Event | None:
        last = (await harness.stored("orphans"))[-1]
        return last if isinstance(last, ev.BidPlaced | ev.GameEnded) else None
    bid = await until(moved)
    assert isinstance(bid, ev.BidPlaced) and bid.seat == seat and not bid.auto
