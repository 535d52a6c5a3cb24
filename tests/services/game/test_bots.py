"""Bot seats play through the same commands as people, and talk at the table now and then."""

from __future__ import annotations

import msgspec
from msgspec.structs import replace

from engine.presets import CLASSIC, HOUSE
from engine.replay import groups, verify
from engine.state import OVER, seats_in
from schemas import commands as cmd
from schemas import events as ev
from schemas.gamebus import ChatLine
from schemas.rules import Clocks
from services.game import banter
from services.game.clock import ManualClock
from tests.services.game.conftest import Harness, ended_on_jetstream
from tests.waiting import until

BOTS = ("bot:basic", "bot:basic", "bot:basic", "bot:basic")


async def _listen(h: Harness, game_id: str) -> list[ChatLine]:
    heard: list[ChatLine] = []

    async def on_line(msg: object) -> None:
        heard.append(msgspec.msgpack.decode(msg.data, type=ChatLine))  # type: ignore[attr-defined]
    await h.nc.subscribe(h.names.game_chat(game_id), cb=on_line)
    return heard


async def test_an_all_bot_table_plays_a_house_match_to_the_end_on_jetstream(
        harness: Harness) -> None:
    await harness.worker()
    heard = await _listen(harness, "bots1")
    created = await harness.create("bots1", HOUSE, BOTS, rated=False)
    assert created.ok

    async def over() -> bool:
        return (await harness.state("bots1")).phase == OVER
    await until(over, timeout=60)
    ended = await until(lambda: ended_on_jetstream(harness.js, harness.names, "bots1"))
    assert isinstance(ended, ev.GameEnded) and ended.players == BOTS and not ended.rated
    assert ended.rules == HOUSE and ended.hands_played >= 1
    stored = await harness.stored("bots1")
    started = stored[0]
    assert isinstance(started, ev.GameStarted)
    assert verify(stored) is None  # every stored event is what the rules decide
    assert await harness.pool.fetchval(
        "SELECT ended_at IS NOT NULL FROM games WHERE game_id = 'bots1'")
    # Table talk: exactly the lines the game's moments and versions choose, from bots.
    expected = []
    for i, before, after, _ in groups(stored):
        batch = stored[i:i + after.version - before.version]
        expected += [(line.seat, line.text) for line in
                     banter.lines("bots1", i + 1, banter.moments(before, batch), 0b1111)]
    assert expected

    async def all_heard() -> bool:
        return len(heard) >= len(expected)
    await until(all_heard)
    assert [(line.seat, line.text) for line in heard] == expected
    assert all(line.bot and line.seat is not None and line.name == f"Bot {line.seat + 1}"
               for line in heard)


async def test_with_the_banter_switch_off_the_bots_say_nothing(harness: Harness) -> None:
    await harness.worker()
    heard = await _listen(harness, "quiet")
    await harness.create("quiet", replace(HOUSE, target=None, max_hands=2), BOTS, banter=False)

    async def over() -> bool:
        return (await harness.state("quiet")).phase == OVER
    await until(over, timeout=30)
    await harness.nc.flush()
    assert heard == []


async def test_a_seat_left_by_its_player_is_played_by_the_bot_until_the_player_returns(
        harness: Harness) -> None:
    await harness.worker(ManualClock())
    players = ("ann", "bot:basic", "bot:basic", "bot:basic")
    await harness.create("left", CLASSIC, players)

    async def ann_to_act() -> bool:
        return bool((await harness.state("left")).waiting & 1)
    await until(ann_to_act)
    version = (await harness.state("left")).version
    assert (await harness.send("left", cmd.LeaveSeat(seat=0), "leave", "ann")).ok

    async def moved_on() -> bool:
        s = await harness.state("left")
        return s.version > version + 3 and s.bots == 1
    await until(moved_on)
    assert (await harness.send("left", cmd.ReturnToSeat(seat=0), "back", "ann")).ok

    async def ann_again() -> bool:
        return bool((await harness.state("left")).waiting & 1)
    await until(ann_again)
    state = await harness.state("left")
    assert state.bots == 0 and seats_in(state.waiting) == [0]


async def test_bots_whose_clocks_are_shorter_than_their_thinking_play_and_never_forfeit(
        harness: Harness) -> None:
    """Four bots under ``abandon: forfeit`` with 300 ms clocks and 800 ms of thinking: each
    moves when its clock runs out (its own move, not a clock's), and the hand is played."""
    clock = ManualClock()
    await harness.worker(clock, bot_think_ms=800)
    short = Clocks(bid_ms=300, play_ms=300, single_card_ms=300, bank_blocks=0)
    await harness.create("hurried", replace(HOUSE, abandon="forfeit", clocks=short), BOTS)
    version = 0
    for _ in range(200):
        state = await harness.state("hurried")
        if state.hands_played or state.phase == OVER:
            break
        version = state.version
        clock.set(min(state.deadlines[seat] for seat in seats_in(state.waiting)))

        async def moved(before: int = version) -> bool:
            return (await harness.state("hurried")).version > before
        await until(moved)
    stored = await harness.stored("hurried")
    assert not [e for e in stored if isinstance(e, ev.GameEnded)]
    assert (await harness.state("hurried")).hands_played == 1
    moves = [e for e in stored if isinstance(e, ev.BidPlaced | ev.CardPlayed)]
    assert len(moves) == 4 + 52 and not any(e.auto for e in moves)


def test_bot_lines_are_a_pure_choice_of_the_game_and_its_version() -> None:
    found = [banter.Moment("nil_made", 1), banter.Moment("set", 0), banter.Moment("boston", 1)]
    first = banter.lines("g", 17, found, 0b1010)
    assert first == banter.lines("g", 17, found, 0b1010)
    assert all(line.seat in (1, 3) for line in first)
    assert banter.lines("g", 17, found, 0) == []
    # Over many versions every kind of moment gets a line sometimes, and not always.
    spoken = [len(banter.lines("g", v, [banter.Moment("set", 0)], 0b1111)) for v in range(400)]
    assert 0 < sum(spoken) < 400


async def test_the_host_may_seat_an_expert_bot_beside_basic_ones(harness: Harness) -> None:
    await harness.worker()
    players = ("bot:expert", "", "bot:basic", "")
    levels = ("", "basic", "", "expert")
    await harness.create("levels", replace(CLASSIC, target=None, max_hands=1), players,
                         bot_levels=levels)

    async def over() -> bool:
        return (await harness.state("levels")).phase == OVER
    await until(over, timeout=60)
    started = (await harness.stored("levels"))[0]
    assert isinstance(started, ev.GameStarted)
    assert started.players == ("bot:expert", "bot:basic", "bot:basic", "bot:expert")
