"""The ratings endpoints: batch ratings, the leaderboard, a player's page and history."""

from __future__ import annotations

import asyncio
import dataclasses
import time
import uuid

import asyncpg
import pytest

from schemas import ratings as api
from services.platform import bus, connection
from services.ratings.api import Ratings
from services.ratings.board import BoardRefresher
from services.ratings.elo import Elo, KSchedule
from tests.services.ratings.conftest import NOW_MS, Feed, ended, envelope

DAY_MS = 86_400_000
# Established after two rated games, so the board fills with few games.
BOARD_SCHEDULE = KSchedule(provisional=40, established=20, provisional_games=2)


@pytest.fixture
async def ratings(pool: asyncpg.Pool, feed: Feed) -> Ratings:
    """a and c beat b and d twice (+20, then 40 * (1 - 1 / (1 + 10^-0.1)) = 17.7 -> +18);
    e..h played twice three weeks ago; i..l played once."""
    for n in range(2):
        await feed(envelope(f"now{n}", ended(("a", "b", "c", "d"), winner=0), at_ms=NOW_MS))
        await feed(envelope(f"old{n}", ended(("e", "f", "g", "h"), winner=1),
                            at_ms=NOW_MS - 21 * DAY_MS))
    await feed(envelope("once", ended(("i", "j", "k", "l"), winner=0), at_ms=NOW_MS))
    made = Ratings(pool, Elo(1500, BOARD_SCHEDULE), active_days=14, now=lambda: NOW_MS / 1000 + 60)
    assert await made.refresh(every=0) == 8  # a..d and i..l; e..h are three weeks gone
    return made


def _board(reply: api.LeaderboardReply) -> list[tuple[int, str, int]]:
    return [(r.rank, r.player_id, r.rating) for r in reply.rows]


async def test_the_board_lists_established_players_active_in_two_weeks(ratings: Ratings) -> None:
    reply = await ratings.leaderboard(api.LeaderboardRequest())
    assert _board(reply) == [(1, "a", 1538), (2, "c", 1538), (3, "b", 1462), (4, "d", 1462)]
    assert not any(r.provisional for r in reply.rows)


async def test_provisional_players_join_the_board_when_asked_and_are_marked(
        ratings: Ratings) -> None:
    reply = await ratings.leaderboard(api.LeaderboardRequest(provisional=True))
    assert [(r.player_id, r.provisional) for r in reply.rows] == [
        ("a", False), ("c", False), ("i", True), ("k", True), ("j", True), ("l", True),
        ("b", False), ("d", False)]


async def test_a_page_starts_at_its_offset(ratings: Ratings) -> None:
    reply = await ratings.leaderboard(api.LeaderboardRequest(limit=2, offset=2))
    assert _board(reply) == [(3, "b", 1462), (4, "d", 1462)]


async def test_around_a_player_centres_the_page_on_its_place(ratings: Ratings) -> None:
    reply = await ratings.leaderboard(api.LeaderboardRequest(limit=2, around="d"))
    assert reply.offset == 2 and [r.player_id for r in reply.rows] == ["b", "d"]
    top = await ratings.leaderboard(api.LeaderboardRequest(limit=4, around="a"))
    assert top.offset == 0 and [r.player_id for r in top.rows] == ["a", "c", "b", "d"]


async def test_around_a_player_the_board_does_not_list_shows_where_its_rating_falls(
        ratings: Ratings) -> None:
    """e (1462, inactive) would sit after b and d (1462, ids before e)."""
    reply = await ratings.leaderboard(api.LeaderboardRequest(limit=2, around="e"))
    assert reply.offset == 3 and [r.player_id for r in reply.rows] == ["d"]
    new = await ratings.leaderboard(api.LeaderboardRequest(limit=2, around="nobody",
                                                           provisional=True))
    assert [r.player_id for r in new.rows] == ["k", "j"]  # 1500 falls between k and j


async def test_the_board_is_the_last_refresh_and_ratings_are_live(
        ratings: Ratings, feed: Feed) -> None:
    for n in range(2):  # b and d: 1462 + 24 + 22 = 1508; a and c: 1538 - 24 - 22 = 1492
        await feed(envelope(f"upset{n}", ended(("b", "a", "d", "c"), winner=0),
                            at_ms=NOW_MS + 1000))
    # Refreshed a moment ago: left alone for the period, and for fresh_seconds though behind.
    assert await dataclasses.replace(ratings, fresh_seconds=60).refresh() is None
    b = await ratings.player(api.PlayerRequest("b"))
    assert (b.rating, b.rank) == (1508, 3)
    assert await ratings.refresh(every=0) == 8
    top = await ratings.leaderboard(api.LeaderboardRequest(limit=1))
    assert [r.player_id for r in top.rows] == ["b"]
    assert (await ratings.player(api.PlayerRequest("b"))).rank == 1


async def test_a_board_behind_the_ratings_is_recomputed_within_fresh_seconds(
        ratings: Ratings, feed: Feed) -> None:
    """A rated game reaches the leaderboard within seconds of its end, not at the next
    period; a board that has every rated game waits out its period."""
    clock = [ratings.now()]
    soon = dataclasses.replace(ratings, fresh_seconds=0.5, now=lambda: clock[0])
    clock[0] += 0.6
    assert await soon.refresh() is None  # nothing rated since the last refresh
    await feed(envelope("upset", ended(("b", "a", "d", "c"), winner=0), at_ms=NOW_MS + 1000))
    clock[0] += 0.6
    assert await soon.refresh() == 8
    board = await soon.leaderboard(api.LeaderboardRequest(limit=20, provisional=True))
    live = await soon.player(api.PlayerRequest("b"))
    assert [r.rating for r in board.rows if r.player_id == "b"] == [live.rating] != [1462]
    clock[0] += 0.6
    assert await soon.refresh() is None


async def test_a_players_page_has_its_rank_only_when_the_board_lists_it(
        ratings: Ratings) -> None:
    c = await ratings.player(api.PlayerRequest("c"))
    assert (c.rating, c.rank, c.games, c.wins, c.peak, c.provisional) == \
        (1538, 2, 2, 2, 1538, False)
    assert c.last_game_at_ms == NOW_MS
    e = await ratings.player(api.PlayerRequest("e"))
    assert e.rank is None and e.games == 2  # no rated game for three weeks
    i = await ratings.player(api.PlayerRequest("i"))
    assert i.rank is None and i.provisional
    new = await ratings.player(api.PlayerRequest("nobody"))
    assert new == api.PlayerRating(player_id="nobody", rating=1500, peak=1500, provisional=True)


async def test_batch_ratings_come_back_in_the_order_asked(ratings: Ratings) -> None:
    reply = await ratings.ratings(api.RatingsRequest(["d", "nobody", "a"]))
    assert [(r.player_id, r.rating) for r in reply.ratings] == [
        ("d", 1462), ("nobody", 1500), ("a", 1538)]


async def test_history_pages_newest_first(ratings: Ratings) -> None:
    first = await ratings.history(api.HistoryRequest(player_id="a", limit=1))
    assert [(e.game_id, e.rating_before, e.delta, e.k, e.result, e.partner, e.opponents)
            for e in first.entries] == [("now1", 1520, 18, 40, "win", "c", ["b", "d"])]
    assert first.next is not None
    second = await ratings.history(api.HistoryRequest(player_id="a", limit=1,
                                                      before=first.next))
    assert [(e.game_id, e.rating_before, e.rating_after) for e in second.entries] == [
        ("now0", 1500, 1520)]
    whole = await ratings.history(api.HistoryRequest(player_id="a"))
    assert [e.game_id for e in whole.entries] == ["now1", "now0"] and whole.next is None


async def test_the_endpoints_answer_on_the_bus_and_refuse_bad_requests(
        ratings: Ratings, nats_url: str, nats_prefix: str) -> None:
    group = f"{nats_prefix}.svc{uuid.uuid4().hex[:8]}"
    nc = await connection.connect(nats_url, "test")
    micro = await bus.serve(nc, service="ratings", version="0.1.0", group=group,
                            endpoints=ratings.endpoints())
    try:
        reply = await bus.request(nc, f"{group}.{api.PLAYER}", api.PlayerRequest("a"),
                                  api.PlayerRating)
        assert (reply.rating, reply.rank) == (1538, 1)
        with pytest.raises(bus.RemoteError) as bad:
            await bus.request(nc, f"{group}.{api.LEADERBOARD}",
                              api.LeaderboardRequest(limit=500), api.LeaderboardReply)
        assert bad.value.code == "400"
    finally:
        await micro.stop()
        await nc.close()


async def test_the_refresher_recomputes_the_board_by_itself(pool: asyncpg.Pool,
                                                            feed: Feed) -> None:
    # The refresher runs on the event loop's own timer: the board's clock moves with it.
    start = time.monotonic()
    ratings = Ratings(pool, Elo(1500, BOARD_SCHEDULE), active_days=14, refresh_seconds=1,
                      now=lambda: NOW_MS / 1000 + time.monotonic() - start)
    refresher = BoardRefresher(ratings)
    await refresher.start()
    try:
        assert refresher.running
        await feed(envelope("g1", ended(("a", "b", "c", "d"), winner=0), at_ms=NOW_MS))
        async with asyncio.timeout(15):
            while await pool.fetchval("SELECT count(*) FROM board") < 4:
                await asyncio.sleep(0.1)
    finally:
        await refresher.stop()
    assert not refresher.running
