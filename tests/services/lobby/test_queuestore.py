"""The queue's tables on a real Postgres: races between joins, cancels and the
matchmaker's commit end with each player in a match xor out of the queue, and a
matchmaker whose lease was taken commits nothing."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import asyncpg
import pytest

from engine.presets import resolve
from schemas import events as ev
from schemas.bus import EventEnvelope
from schemas.subjects import Names
from services.lobby.base.clock import now_ms
from services.lobby.clients.broadcasts import Broadcasts
from services.lobby.games import store as games_store
from services.lobby.games.projection import projection_handlers
from services.lobby.ranked import store as qs
from services.platform import connection
from services.platform.busclient import BusClient
from services.platform.events import game_registry
from services.platform.lease import FencedError, Leases


@pytest.fixture(scope="module")
async def pool(make_database: Callable[[], Awaitable[str]]) -> AsyncIterator[asyncpg.Pool]:
    made = await asyncpg.create_pool(await make_database(), min_size=2, max_size=60,
                                     server_settings={"search_path": "lobby,public"})
    assert made is not None
    yield made
    await made.close()


@pytest.fixture
async def lease(pool: asyncpg.Pool) -> tuple[str, int]:
    name = f"mm-{uuid.uuid4().hex[:8]}"
    return name, (await Leases(pool).claim(name, "leader", 30)).epoch


def pid() -> str:
    return str(uuid.uuid4())


async def solo(pool: asyncpg.Pool, player: str, socket: str = "s") -> qs.TicketRow:
    return await qs.join(pool, uuid.uuid4().hex, player, 1500, "gw", socket, None, 0, 60)


def offer(tickets: list[qs.TicketRow]) -> qs.Offer:
    players = tuple(p for t in tickets for p in t.players)
    assert len(players) == 4
    return qs.Offer(match_id=uuid.uuid4().hex,
                    tickets=tuple((t.ticket_id, t.version) for t in tickets),
                    players=players, ratings=(1500,) * 4, gap=0.0,
                    waited_ms=(0,) * 4, request=b"x")


async def test_concurrent_joins_of_one_player_make_one_ticket(pool: asyncpg.Pool) -> None:
    player = pid()
    results = await asyncio.gather(*(solo(pool, player, f"s{i}") for i in range(10)),
                                   return_exceptions=True)
    made = [r for r in results if isinstance(r, qs.TicketRow)]
    assert len(made) == 1
    assert all(isinstance(r, qs.AlreadyQueued) for r in results if r not in made)
    assert await pool.fetchval("SELECT count(*) FROM queue_tickets WHERE $1 = ANY(players)",
                               player) == 1


async def test_two_who_name_each_other_at_once_make_one_pair(pool: asyncpg.Pool) -> None:
    a, b = pid(), pid()
    one, two = await asyncio.gather(
        qs.join(pool, uuid.uuid4().hex, a, 1400, "gw", "sa", b, 1600, 60),
        qs.join(pool, uuid.uuid4().hex, b, 1600, "gw", "sb", a, 1400, 60))
    assert {one.state, two.state} == {"inviting", "waiting"}
    pair = one if one.state == "waiting" else two
    assert set(pair.players) == {a, b} and sorted(pair.ratings) == [1400, 1600]
    assert await pool.fetchval("SELECT count(DISTINCT ticket_id) FROM queue_members"
                               " WHERE player_id = ANY($1)", [a, b]) == 1


async def test_an_invite_answered_too_late_is_an_invite_of_its_own(pool: asyncpg.Pool) -> None:
    a, b = pid(), pid()
    first = await qs.join(pool, uuid.uuid4().hex, a, 1500, "gw", "sa", b, 1500, 60)
    await pool.execute("UPDATE queue_tickets SET since = now() - interval '61 seconds'"
                       " WHERE ticket_id = $1", first.ticket_id)
    second = await qs.join(pool, uuid.uuid4().hex, b, 1500, "gw", "sb", a, 1500, 60)
    assert second.state == "inviting" and second.ticket_id != first.ticket_id


async def test_fifty_cancels_racing_a_commit_leave_each_ticket_matched_xor_cancelled(
        pool: asyncpg.Pool, lease: tuple[str, int]) -> None:
    name, epoch = lease
    players = [pid() for _ in range(52)]
    tickets = [await solo(pool, p) for p in players]
    offers = [offer(tickets[i:i + 4]) for i in range(0, 52, 4)]
    racing = players[:50]
    commit = asyncio.create_task(qs.commit_offers(pool, name, epoch, offers))
    left = await asyncio.gather(*(qs.leave(pool, p) for p in racing))
    kept = await commit
    by_ticket = {r["ticket_id"]: r for r in await pool.fetch(
        "SELECT ticket_id, state, match_id FROM queue_tickets WHERE ticket_id = ANY($1)",
        [t.ticket_id for t in tickets])}
    matches = {r["match_id"]: list(r["tickets"]) for r in await pool.fetch(
        "SELECT match_id, tickets FROM queue_matches WHERE match_id = ANY($1)",
        [o.match_id for o in offers])}
    assert set(matches) == {o.match_id for o in kept}
    for t, gone in zip(tickets, [*left, None, None], strict=True):
        row = by_ticket.get(t.ticket_id)
        in_match = any(t.ticket_id in ids for ids in matches.values())
        if row is None:  # cancelled: in no match
            assert not in_match and gone is not None and gone.state == "waiting"
        elif gone is not None:  # matched: the cancel found it matched and left it
            assert row["state"] == "matched" and in_match and gone.state == "matched", t
        else:  # not cancelled: matched, or waiting still when a cancel undid its offer
            assert (row["state"] == "matched") == in_match, t
    for ids in matches.values():  # an offer is whole or absent
        assert all(by_ticket.get(i) is not None for i in ids)


async def test_a_stale_epoch_commits_nothing(pool: asyncpg.Pool) -> None:
    name = f"mm-{uuid.uuid4().hex[:8]}"
    leases = Leases(pool)
    old = await leases.claim(name, "paused", 30)
    await pool.execute("UPDATE leases SET until = now() - interval '1 second' WHERE name = $1",
                       name)
    new = await leases.claim(name, "adopter", 30)
    assert new.epoch == old.epoch + 1
    tickets = [await solo(pool, pid()) for _ in range(4)]
    with pytest.raises(FencedError):
        await qs.commit_offers(pool, name, old.epoch, [offer(tickets)])
    states = await pool.fetch("SELECT state FROM queue_tickets WHERE ticket_id = ANY($1)",
                              [t.ticket_id for t in tickets])
    assert [r["state"] for r in states] == ["waiting"] * 4
    assert await qs.commit_offers(pool, name, new.epoch, [offer(tickets)])


async def test_a_ticket_changed_since_it_was_read_drops_its_offer_only(
        pool: asyncpg.Pool, lease: tuple[str, int]) -> None:
    name, epoch = lease
    tickets = [await solo(pool, pid()) for _ in range(8)]
    stale = offer(tickets[:4])
    await qs.leave(pool, tickets[0].players[0])
    fresh = offer(tickets[4:])
    assert [o.match_id for o in await qs.commit_offers(pool, name, epoch, [stale, fresh])] \
        == [fresh.match_id]
    assert await pool.fetchval("SELECT count(*) FROM queue_tickets WHERE ticket_id = ANY($1)"
                               " AND state = 'waiting'",
                               [t.ticket_id for t in tickets[1:4]]) == 3


async def test_a_failed_ready_check_requeues_the_ready_keeping_their_wait_and_cools_the_absent(
        pool: asyncpg.Pool, lease: tuple[str, int]) -> None:
    name, epoch = lease
    tickets = [await solo(pool, pid()) for _ in range(4)]
    await pool.execute("UPDATE queue_tickets SET since = since - interval '40 seconds'"
                       " WHERE ticket_id = ANY($1)", [t.ticket_id for t in tickets])
    before = {t.ticket_id: (await qs.ticket_of(pool, t.players[0])) for t in tickets}
    [made] = await qs.commit_offers(pool, name, epoch, [offer(tickets)])
    absent = tickets[2].players[0]
    done = await qs.settle(pool, (name, epoch), made.match_id, "not_ready", "", {absent},
                           60, 7200)
    assert done is not None
    assert {t.ticket_id for t in done.requeued} == {t.ticket_id for t in tickets} - {
        tickets[2].ticket_id}
    for t in done.requeued:
        was = before[t.ticket_id]
        assert was is not None and (t.state, t.since_ms) == ("waiting", was.since_ms)
    assert done.dropped == (absent,)
    [(who, until)] = done.penalised
    assert who == absent and until == await qs.cooldown_until(pool, absent)
    assert await qs.settle(pool, (name, epoch), made.match_id, "not_ready", "", {absent},
                           60, 7200) is None  # settled once


async def test_an_offer_whose_match_ended_is_settled_once_by_anyone_unfenced(
        pool: asyncpg.Pool, lease: tuple[str, int]) -> None:
    """A player's leave settles the offer its decline ended, with no lease; the leader,
    settling the same offer under its lease, finds it done and cools nobody twice."""
    name, epoch = lease
    tickets = [await solo(pool, pid()) for _ in range(4)]
    [made] = await qs.commit_offers(pool, name, epoch, [offer(tickets)])
    decliner = tickets[0].players[0]
    settled = await asyncio.gather(
        qs.settle(pool, None, made.match_id, "not_ready", "", {decliner}, 60, 7200),
        qs.settle(pool, (name, epoch), made.match_id, "not_ready", "", {decliner}, 60, 7200))
    [done] = [d for d in settled if d is not None]
    assert done.dropped == (decliner,) and len(done.requeued) == 3
    assert await pool.fetchval("SELECT strikes FROM queue_penalties WHERE player_id = $1",
                               decliner) == 1
    assert await qs.settle(pool, None, made.match_id, "not_ready", "", {decliner},
                           60, 7200) is None


async def test_missed_matches_within_a_day_double_the_cooldown_up_to_the_cap(
        pool: asyncpg.Pool, lease: tuple[str, int]) -> None:
    name, epoch = lease
    absent = pid()
    lengths = []
    for _ in range(4):
        await pool.execute("UPDATE queue_penalties SET until = now() WHERE player_id = $1",
                           absent)
        tickets = [await solo(pool, absent), *[await solo(pool, pid()) for _ in range(3)]]
        [made] = await qs.commit_offers(pool, name, epoch, [offer(tickets)])
        done = await qs.settle(pool, (name, epoch), made.match_id, "not_ready", "", {absent},
                               60, 200)
        assert done is not None
        seconds = await pool.fetchval("SELECT extract(epoch FROM until - struck_at)"
                                      " FROM queue_penalties WHERE player_id = $1", absent)
        lengths.append(round(float(seconds)))
        await pool.execute("DELETE FROM queue_tickets WHERE ticket_id = ANY($1)",
                           [t.ticket_id for t in tickets])
    assert lengths == [60, 120, 200, 200]


async def test_a_started_match_takes_its_tickets_out(pool: asyncpg.Pool,
                                                     lease: tuple[str, int]) -> None:
    name, epoch = lease
    tickets = [await solo(pool, pid()) for _ in range(4)]
    [made] = await qs.commit_offers(pool, name, epoch, [offer(tickets)])
    done = await qs.settle(pool, (name, epoch), made.match_id, "started", "g1", set(), 60, 7200)
    assert done is not None and not done.requeued and not done.penalised
    assert sorted(done.dropped) == sorted(made.players)
    assert await pool.fetchval("SELECT count(*) FROM queue_members WHERE player_id = ANY($1)",
                               list(made.players)) == 0
    rows = await qs.waiting(pool, 7200)
    assert all(not set(w.ticket.players) & set(made.players) for w in rows)
    back = await solo(pool, made.players[0])
    [seen] = [w for w in await qs.waiting(pool, 7200) if w.ticket.ticket_id == back.ticket_id]
    assert seen.last_players == frozenset(made.players)
    assert seen.last_partner == made.players[2]


async def test_a_leaver_cools_down_and_the_partner_does_not(pool: asyncpg.Pool) -> None:
    players = tuple(pid() for _ in range(4))
    async with pool.acquire() as conn:
        await qs.leavers(conn, "g", (1,), players, 7200)
    assert await qs.cooldown_until(pool, players[1]) > now_ms() + 7_000_000
    assert await qs.cooldown_until(pool, players[3]) == 0
    back = await solo(pool, players[1])
    [seen] = [w for w in await qs.waiting(pool, 7200) if w.ticket.ticket_id == back.ticket_id]
    assert seen.leaver


def envelope(game_id: str, version: int, event: Any) -> EventEnvelope:
    """A game's event as its consumers receive it."""
    encoded = game_registry().encode(event)
    return EventEnvelope(stream=game_id, version=version, position=version, type=encoded.type,
                         schema_version=encoded.schema_version, event_id=uuid.uuid4().hex,
                         occurred_at_ms=now_ms(), correlation_id=None, causation_id=None,
                         body=encoded.body)


async def _project(pool: asyncpg.Pool, broadcasts: Broadcasts, game_id: str, *events: Any) -> None:
    """Feed a game's events to the lobby's own games projection, as its consumer does."""
    projection = projection_handlers(60, broadcasts)
    for version, event in enumerate(events, 1):
        env = envelope(game_id, version, event)
        handle = projection.started if isinstance(event, ev.GameStarted) else projection.ended
        async with pool.acquire() as conn, conn.transaction():
            await handle(conn, env)
        if isinstance(event, ev.GameEnded):
            await projection.ended_committed([env])


async def test_every_ended_game_a_player_sat_in_counts_toward_ranked_play(
        pool: asyncpg.Pool, nats_url: str, nats_prefix: str) -> None:
    """docs/protocol.md: any ended game with the player among its players counts, whatever
    opened it, rated or not, with bots, and one the player left; a running one does not."""
    nc = await connection.connect(nats_url, "test")
    try:
        await _games_played(pool, Broadcasts(BusClient(nc), Names(nats_prefix)))
    finally:
        await nc.close()


async def _games_played(pool: asyncpg.Pool, broadcasts: Broadcasts) -> None:
    me, other = pid(), pid()
    seats = (me, "bot:basic", other, "bot:expert")
    rules = resolve("quick")
    played = uuid.uuid4().hex
    await _project(pool, broadcasts, played, ev.GameStarted(rules=rules, players=seats),
                   ev.GameEnded(winner=None, reason="hands", scores=(90, 90), bags=(1, 1),
                                hands_played=1, players=seats))
    left = uuid.uuid4().hex  # the player left; a bot finished the seat
    await _project(pool, broadcasts, left, ev.GameStarted(rules=rules, players=seats),
                   ev.GameEnded(winner=1, reason="target", scores=(120, 510), bags=(0, 2),
                                hands_played=4, players=seats, abandoned=(0,)))
    forfeited = uuid.uuid4().hex
    await _project(pool, broadcasts, forfeited, ev.GameStarted(rules=rules, players=seats),
                   ev.GameEnded(winner=1, reason="forfeit", scores=(0, 0), bags=(0, 0),
                                hands_played=0, players=seats, forfeited_by=0))
    await _project(pool, broadcasts, uuid.uuid4().hex, ev.GameStarted(rules=rules, players=seats))
    await _project(pool, broadcasts, uuid.uuid4().hex, ev.GameStarted(
        rules=rules, players=(other, "bot:basic", pid(), "bot:basic")))
    assert await games_store.finished_games(pool, me) == 3


async def test_starts_and_ends_of_the_same_games_in_opposite_orders_both_commit(
        pool: asyncpg.Pool, nats_url: str, nats_prefix: str) -> None:
    """The games projection's two consumers: a fetch of starts and a fetch of ends that
    name the same games in opposite orders both commit, one after the other, instead of
    one failing with ``deadlock detected``."""
    nc = await connection.connect(nats_url, "test")
    try:
        projection = projection_handlers(60, Broadcasts(BusClient(nc), Names(nats_prefix)))
        seats = (str(uuid.uuid4()), "bot:basic", str(uuid.uuid4()), "bot:basic")
        games = [uuid.uuid4().hex for _ in range(40)]
        # Started in one order, ended in the other (the later games were the shorter).
        starts = [envelope(g, 1, ev.GameStarted(rules=resolve("quick"), players=seats))
                  for g in games]
        ends = [envelope(g, 2, ev.GameEnded(winner=0, reason="forfeit", scores=(0, 0),
                                            bags=(0, 0), hands_played=0, players=seats,
                                            forfeited_by=1)) for g in reversed(games)]

        async def fetch(handler: Any, envs: list[EventEnvelope]) -> None:
            async with pool.acquire() as conn, conn.transaction():
                await projection.in_game_order(handler)(conn, envs)

        await asyncio.gather(fetch(projection.started, starts), fetch(projection.ended, ends))
        await projection.ended_committed(ends)
        rows = await pool.fetch("SELECT started_at IS NOT NULL AS began, ended_at IS NOT NULL"
                                " AS ended FROM games WHERE game_id = ANY($1)", games)
        assert len(rows) == len(games) and all(r["began"] and r["ended"] for r in rows)
    finally:
        await nc.close()
