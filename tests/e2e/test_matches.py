"""svc.lobby.open_match on the whole platform: any service seats four players in a game,
once per match id however often and however concurrently it is asked, even across a
lobby killed between recording the match and creating its game."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import asyncpg
import msgspec
import nats
import nats.errors
import pytest
from nats.aio.client import Client

from schemas.matches import OPEN_MATCH, MatchOpened, MatchSeat, OpenMatch
from schemas.subjects import Names
from services.platform import bus, faults
from tests.e2e.conftest import Platform
from tests.e2e.players import Seat, play_until_over
from tests.e2e.replays import registered
from tests.services.lobby.harness import Player, Service, Socket, lobby_env, start
from tests.waiting import until

ONE_HAND = {"preset": "classic", "target": None, "max_hands": 1}
BOTS = (MatchSeat(bot="basic"),) * 4  # a tuple of four, as a match's seats are typed


def ask(match_id: str, seats: tuple[MatchSeat, ...] = BOTS, rated: bool = False,
        origin: str = "queue") -> OpenMatch:
    return OpenMatch(match_id=match_id, seats=seats, rules=ONE_HAND,  # type: ignore[arg-type]
                     rated=rated, origin=origin, origin_id="test")  # type: ignore[arg-type]


async def open_match(nc: Client, prefix: str, req: OpenMatch,
                     timeout: float = 10.0) -> MatchOpened:
    return await bus.request(nc, Names(prefix).endpoint("lobby", OPEN_MATCH), req,
                             MatchOpened, timeout=timeout)


async def count(database_url: str, sql: str, *args: object) -> int:
    conn = await asyncpg.connect(database_url)
    try:
        return int(await conn.fetchval(sql, *args))
    finally:
        await conn.close()


@pytest.fixture(scope="module")
def ratings(platform: Platform, database_url: str, nats_url: str,
            nats_prefix: str) -> Iterator[Service]:
    svc = start("ratings", platform.logs / "ratings.log",
                **lobby_env(database_url, nats_url, f"{nats_prefix}e2e"))
    yield svc
    svc.stop()


async def rated_match(platform: Platform, nc: Client, prefix: str, name: str
                      ) -> tuple[MatchOpened, list[Player], list[Socket]]:
    """Four new registered people, each with a socket (on gateways a and b in turn),
    seated by another service in a rated match."""
    tag = uuid.uuid4().hex[:6]
    people = [await registered((platform.a, platform.b)[i % 2].url, f"{name}{tag}{i}")
              for i in range(4)]
    socks = [await p.socket((platform.a, platform.b)[i % 2].ws_url)
             for i, p in enumerate(people)]
    opened = await open_match(nc, f"{prefix}e2e", ask(
        f"{name}-{tag}", tuple(MatchSeat(player_id=p.player_id) for p in people), rated=True))
    return opened, people, socks


async def test_four_registered_people_seated_by_another_service_play_a_rated_game(
        platform: Platform, ratings: Service, nc: Client, nats_prefix: str,
        database_url: str) -> None:
    opened, people, socks = await rated_match(platform, nc, nats_prefix, "rated")
    assert opened.rated and not opened.duplicate
    for i, sock in enumerate(socks):  # each learns of it on its own gateway
        note = (await sock.of_type("note"))["note"]
        assert (note["kind"], note["game_id"], note["seat"]) == ("match_started",
                                                                 opened.game_id, i)
    seats = [Seat(p, s, opened.game_id) for p, s in zip(people, socks, strict=True)]
    for i, s in enumerate(seats):
        await s.subscribe()
        assert s.seat == i
    await play_until_over(seats)
    ended = seats[0].ended
    assert ended is not None and ended["rated"]

    async def rated() -> list[asyncpg.Record]:
        conn = await asyncpg.connect(database_url)
        try:
            return list(await conn.fetch(
                "SELECT player_id, rating FROM ratings.ratings WHERE player_id = ANY($1)",
                [p.player_id for p in people]))
        finally:
            await conn.close()
    rows = await until(rated, timeout=30)
    assert len(rows) == 4
    if ended["winner"] is not None:
        assert all(r["rating"] != 1500 for r in rows)
    for s in seats:
        await s.sock.close()
    await asyncio.gather(*(p.aclose() for p in people))


async def test_a_rated_match_needs_four_registered_people(
        platform: Platform, nc: Client, nats_prefix: str) -> None:
    guest = await Player.guest(platform.a.url, "Guest")
    member = await registered(platform.a.url, f"member{uuid.uuid4().hex[:6]}")
    for seats in ((MatchSeat(player_id=member.player_id), *BOTS[1:]),
                  (MatchSeat(player_id=member.player_id), MatchSeat(player_id=guest.player_id),
                   *BOTS[2:])):
        with pytest.raises(bus.RemoteError) as refused:
            await open_match(nc, f"{nats_prefix}e2e", ask(uuid.uuid4().hex, seats, rated=True))
        assert refused.value.code == "rated_needs_people"
    with pytest.raises(bus.RemoteError) as refused:
        await open_match(nc, f"{nats_prefix}e2e", ask(uuid.uuid4().hex, origin="table"))
    assert refused.value.code == "bad_origin"
    for bad, code in (((MatchSeat(), *BOTS[1:]), "bad_seats"),
                      ((MatchSeat(player_id=str(uuid.uuid4())), *BOTS[1:]),
                       "player_not_found")):
        with pytest.raises(bus.RemoteError) as refused:
            await open_match(nc, f"{nats_prefix}e2e", ask(uuid.uuid4().hex, bad))
        assert refused.value.code == code
    await asyncio.gather(guest.aclose(), member.aclose())


async def test_one_match_id_is_one_game_however_often_it_is_asked(
        platform: Platform, nc: Client, nats_prefix: str, database_url: str) -> None:
    match_id = f"many-{uuid.uuid4().hex[:8]}"
    answers = await asyncio.gather(*(open_match(nc, f"{nats_prefix}e2e", ask(match_id))
                                     for _ in range(20)))
    assert len({(a.table_id, a.game_id) for a in answers}) == 1
    assert sum(not a.duplicate for a in answers) == 1
    again = await open_match(nc, f"{nats_prefix}e2e", ask(match_id))
    assert (again.game_id, again.duplicate) == (answers[0].game_id, True)
    game_id = answers[0].game_id
    assert await count(database_url, "SELECT count(*) FROM lobby.game_tables"
                                     " WHERE game_id = $1", game_id) == 1
    assert await count(database_url, "SELECT count(*) FROM game.games WHERE game_id = $1",
                       game_id) == 1
    assert await count(database_url, "SELECT count(*) FROM game.events WHERE stream = $1"
                                     " AND type = 'GameStarted'", game_id) == 1
    with pytest.raises(bus.RemoteError) as reused:
        await open_match(nc, f"{nats_prefix}e2e", ask(match_id, rated=False, origin="tournament"))
    assert reused.value.code == "match_id_reused"


async def test_a_match_of_bots_only_starts_at_once_without_its_ready_check(
        platform: Platform, nc: Client, nats_prefix: str, database_url: str) -> None:
    """A ready check asks the people seated; four bots have none to ask, so the first
    answer is the started game, with no deadline (a tournament's bot teams)."""
    match_id = f"bots-{uuid.uuid4().hex[:8]}"
    req = msgspec.structs.replace(ask(match_id, origin="tournament"), ready_seconds=30)
    opened = await open_match(nc, f"{nats_prefix}e2e", req)
    assert (opened.state, opened.ready_by, opened.duplicate) == ("started", 0, False)
    assert await count(database_url, "SELECT count(*) FROM game.events WHERE stream = $1"
                                     " AND type = 'GameStarted'", opened.game_id) == 1
    assert await count(database_url, "SELECT count(*) FROM lobby.matches WHERE match_id = $1"
                                     " AND ready_by IS NULL", match_id) == 1
    again = await open_match(nc, f"{nats_prefix}e2e", req)
    assert (again.state, again.game_id, again.duplicate) == ("started", opened.game_id, True)
    with pytest.raises(bus.RemoteError) as refused:  # its length is checked all the same
        await open_match(nc, f"{nats_prefix}e2e", msgspec.structs.replace(
            req, match_id=f"{match_id}-short", ready_seconds=2))
    assert refused.value.code == "bad_ready"


@pytest.mark.parametrize("finisher", ["the next ask", "a sweep"])
async def test_a_lobby_killed_between_the_match_and_its_game_still_gives_one_game(
        finisher: str, make_database: Callable[[], object], nats_url: str, nats_prefix: str,
        nc: Client, tmp_path: Path) -> None:
    database_url = await make_database()  # type: ignore[misc]
    prefix = f"{nats_prefix}k{uuid.uuid4().hex[:6]}"
    env = lobby_env(database_url, nats_url, prefix, SPADES_MATCH_SWEEP_SECONDS="0.5")
    worker = start("game", tmp_path / "game.log", SPADES_BOT_THINK_MS="0", **env)
    doomed = start("lobby", tmp_path / "doomed.log",
                   SPADES_FAULT=faults.MATCH_RECORDED_BEFORE_GAME, **env)
    survivor: Service | None = None
    match_id = f"crash-{uuid.uuid4().hex[:8]}"
    try:
        with pytest.raises((nats.errors.TimeoutError, nats.errors.NoRespondersError)):
            await open_match(nc, prefix, ask(match_id), timeout=3)
        assert doomed.proc.wait(10) == faults.EXIT_CODE
        assert await count(database_url, "SELECT count(*) FROM lobby.matches"
                                         " WHERE match_id = $1 AND state = 'starting'",
                           match_id) == 1
        assert await count(database_url, "SELECT count(*) FROM game.games") == 0
        survivor = start("lobby", tmp_path / "survivor.log", **env)
        if finisher == "the next ask":
            opened = await open_match(nc, prefix, ask(match_id))
            assert opened.duplicate
        else:
            async def started() -> bool:
                return await count(database_url, "SELECT count(*) FROM lobby.matches"
                                                 " WHERE state = 'started'") == 1
            await until(started, timeout=15)
            opened = await open_match(nc, prefix, ask(match_id))
        assert await count(database_url, "SELECT count(*) FROM game.games") == 1
        assert await count(database_url, "SELECT count(*) FROM game.events"
                                         " WHERE type = 'GameStarted' AND stream = $1",
                           opened.game_id) == 1
    finally:
        for svc in (survivor, doomed, worker):
            if svc is not None:
                svc.stop()
