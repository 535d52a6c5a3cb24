"""Commands to a game over NATS, answered by its one writer: the answer, the duplicate,
the refusal that changes nothing, the full inbox, the platform-only commands."""

from __future__ import annotations

import asyncio

import pytest

from engine.presets import CLASSIC
from engine.state import seats_in
from schemas import commands as cmd
from schemas import events as ev
from schemas.gamebus import CreateGame, EventsReply, EventsSince, GameReply, GameRequest
from services.platform import bus
from tests.services.game.conftest import Harness
from tests.waiting import until

PEOPLE = ("ann", "bob", "cy", "di")


async def _turn(h: Harness, game_id: str) -> int:
    return seats_in((await h.state(game_id)).waiting)[0]


async def test_a_command_goes_to_its_game_and_the_answer_comes_back(harness: Harness) -> None:
    await harness.worker()
    created = await harness.create("g1", CLASSIC, PEOPLE)
    assert created.ok and (created.first_version, created.version) == (1, 2)
    seat = await _turn(harness, "g1")
    reply = await harness.send("g1", cmd.PlaceBid(seat=seat, bid=4), "bid-1", PEOPLE[seat])
    assert reply.ok and not reply.duplicate and (reply.first_version, reply.version) == (3, 3)
    last = (await harness.stored("g1"))[-1]
    assert isinstance(last, ev.BidPlaced) and (last.seat, last.bid) == (seat, 4)

    async def published() -> object:
        try:
            return await harness.js.get_last_msg(harness.names.game_events_stream,
                                                 harness.names.game_event("g1", "BidPlaced"))
        except Exception:
            return None
    assert await until(published)


async def test_the_same_command_id_twice_has_the_effect_of_once_and_the_same_answer(
        harness: Harness) -> None:
    await harness.worker()
    await harness.create("g2", CLASSIC, PEOPLE)
    seat = await _turn(harness, "g2")
    first = await harness.send("g2", cmd.PlaceBid(seat=seat, bid=3), "once")
    again = await harness.send("g2", cmd.PlaceBid(seat=seat, bid=3), "once")
    assert again.duplicate and (again.ok, again.version, again.first_version) == (
        first.ok, first.version, first.first_version)
    # Still the first answer after the game moved on, and nothing new is stored.
    nxt = await _turn(harness, "g2")
    await harness.send("g2", cmd.PlaceBid(seat=nxt, bid=2), "next")
    stored = len(await harness.stored("g2"))
    late = await harness.send("g2", cmd.PlaceBid(seat=seat, bid=3), "once")
    assert late.ok and late.duplicate and late.version == first.version
    assert len(await harness.stored("g2")) == stored


async def test_a_refused_command_changes_nothing_and_is_refused_again_the_same_way(
        harness: Harness) -> None:
    await harness.worker()
    await harness.create("g3", CLASSIC, PEOPLE)
    seat = await _turn(harness, "g3")
    later = (seat + 1) % 4
    before = await harness.stored("g3")
    refused = await harness.send("g3", cmd.PlaceBid(seat=later, bid=5), "early")
    assert (refused.ok, refused.code) == (False, "not_your_turn")
    assert await harness.stored("g3") == before
    assert (await harness.send("g3", cmd.PlaceBid(seat=seat, bid=14), "big")).code == \
        "bid_out_of_range"
    # Now it is that seat's turn, but the same command id keeps its first answer.
    await harness.send("g3", cmd.PlaceBid(seat=seat, bid=3), "in-turn")
    assert await _turn(harness, "g3") == later
    again = await harness.send("g3", cmd.PlaceBid(seat=later, bid=5), "early")
    assert (again.ok, again.code, again.duplicate) == (False, "not_your_turn", True)
    assert len(await harness.stored("g3")) == len(before) + 1


async def test_a_refusal_is_remembered_by_the_next_worker_too(harness: Harness) -> None:
    first = await harness.worker(owner="first")
    await harness.create("g4", CLASSIC, PEOPLE)
    seat = await _turn(harness, "g4")
    await harness.send("g4", cmd.PlaceBid(seat=(seat + 1) % 4, bid=5), "early")
    await first.stop()
    await harness.worker(owner="second")
    await harness.send("g4", cmd.PlaceBid(seat=seat, bid=3), "in-turn")
    again = await harness.send("g4", cmd.PlaceBid(seat=(seat + 1) % 4, bid=5), "early")
    assert (again.code, again.duplicate) == ("not_your_turn", True)


async def test_a_full_inbox_says_busy_instead_of_waiting(harness: Harness) -> None:
    worker = await harness.worker(inbox_size=2)
    await harness.create("g5", CLASSIC, PEOPLE)
    requests = [GameRequest(game_id="g5", command_id=f"look-{i}",
                            command=cmd.LookAtCards(seat=i % 4)) for i in range(6)]
    replies = await asyncio.gather(*(worker.command(r) for r in requests))
    assert [r.code for r in replies] == ["", "", "busy", "busy", "busy", "busy"]
    # Busy applied nothing: the same ids are welcome once the inbox has room.
    assert (await worker.command(requests[2])).ok


async def test_starting_dealing_and_clocks_are_the_platforms_alone(harness: Harness) -> None:
    await harness.worker()
    await harness.create("g6", CLASSIC, PEOPLE)
    for i, command in enumerate([cmd.ClockExpired(seat=0, at=10**15), cmd.StartGame(rules=CLASSIC),
                                 cmd.DealHand(dealer=0, hands=())]):
        reply = await harness.send("g6", command, f"sneaky-{i}")
        assert (reply.ok, reply.code) == (False, "not_allowed")
    assert len(await harness.stored("g6")) == 2


async def test_creating_a_game_twice_is_idempotent_and_a_taken_id_is_refused(
        harness: Harness) -> None:
    await harness.worker()
    first = await harness.create("g7", CLASSIC, PEOPLE)
    again = await harness.create("g7", CLASSIC, PEOPLE)
    assert again.ok and again.duplicate and again.version == first.version
    other = await bus.request(harness.nc, harness.names.game_create, CreateGame(
        game_id="g7", command_id="another", rules=CLASSIC, players=PEOPLE), GameReply)
    assert (other.ok, other.code) == (False, "game_exists")
    bad = await bus.request(harness.nc, harness.names.game_create, CreateGame(
        game_id="no spaces", command_id="x", rules=CLASSIC, players=PEOPLE), GameReply)
    assert (bad.ok, bad.code) == (False, "bad_request")
    started = (await harness.stored("g7"))[0]
    assert isinstance(started, ev.GameStarted) and len(bytes.fromhex(started.seed)) == 32


@pytest.mark.parametrize("answers_kept", [1000, 0], ids=["remembered", "from_the_store"])
async def test_a_command_id_reused_with_another_body_is_refused_not_taken_for_a_retry(
        harness: Harness, answers_kept: int) -> None:
    await harness.worker(answers_kept=answers_kept)
    game = f"reuse{answers_kept}"
    await harness.create(game, CLASSIC, PEOPLE)
    seat = await _turn(harness, game)
    first = await harness.send(game, cmd.PlaceBid(seat=seat, bid=3), "b1", PEOPLE[seat])
    assert first.ok
    stored = await harness.stored(game)
    other = await harness.send(game, cmd.PlaceBid(seat=seat, bid=5), "b1", PEOPLE[seat])
    assert (other.ok, other.code, other.duplicate) == (False, "command_id_reused", False)
    again = await harness.send(game, cmd.PlaceBid(seat=seat, bid=3), "b1", PEOPLE[seat])
    assert again.ok and again.duplicate and again.version == first.version
    # A refused command's id is taken too.
    later = (seat + 2) % 4
    refused = await harness.send(game, cmd.PlaceBid(seat=later, bid=4), "r1", PEOPLE[later])
    assert refused.code == "not_your_turn"
    other = await harness.send(game, cmd.PlaceBid(seat=later, bid=6), "r1", PEOPLE[later])
    assert other.code == "command_id_reused"
    assert await harness.stored(game) == stored


async def test_since_pages_the_stored_events_as_published_with_the_streams_version(
        harness: Harness) -> None:
    """``svc.game.since``: the events after a version, in pages of the asked limit, as
    they were published (bodies untouched), and the stream's version with each page."""
    await harness.worker()
    await harness.create("g1", CLASSIC, PEOPLE)
    for n in range(3):
        seat = await _turn(harness, "g1")
        assert (await harness.send("g1", cmd.PlaceBid(seat=seat, bid=3), f"b{n}",
                                   PEOPLE[seat])).ok
    stored = await harness.events.read("g1")
    head = stored[-1].version
    assert head == 5  # started, dealt, three bids

    async def since(version: int, limit: int = 1000) -> tuple[list[int], int]:
        reply = await bus.request(harness.nc, harness.names.game_events_since,
                                  EventsSince(game_id="g1", version=version, limit=limit),
                                  EventsReply)
        for env in reply.events:  # as stored, body and all
            kept = stored[env.version - 1]
            assert (env.type, env.body, env.event_id) == (kept.type, kept.body,
                                                          str(kept.event_id))
        return [e.version for e in reply.events], reply.version

    assert await since(0) == ([1, 2, 3, 4, 5], head)
    assert await since(2, limit=2) == ([3, 4], head)  # a full page: more may follow
    assert await since(4, limit=2) == ([5], head)
    assert await since(head) == ([], head)  # nothing after: the version still told
    assert await since(1 << 62) == ([], head)
