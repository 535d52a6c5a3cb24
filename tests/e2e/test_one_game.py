"""One running game at a time for a person in a seat, on the whole platform: while a
person plays, no other table seats them or starts with them, however two starts race,
and a match's ready check waits for them; ``GET /v1/me`` never lists two games."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import pytest
from nats.aio.client import Client

from schemas.matches import MatchSeat, OpenMatch
from tests.e2e.conftest import Platform
from tests.e2e.players import play_until_over, two_and_bots
from tests.e2e.test_matches import ONE_HAND, open_match
from tests.e2e.test_play_again import finished_table
from tests.services.lobby.harness import Player

LONG = {"preset": "house"}  # a game that goes on for the whole test


async def playing(player: Player, table: dict[str, Any] | None = None) -> dict[str, Any]:
    """``player`` at seat 0 of a table of bots (``table``, or a new private one), started."""
    t = table or await player.ok("POST", "/v1/tables", {"rules": LONG, "private": True})
    await player.ok("POST", f"/v1/tables/{t['table_id']}/bots", {"level": "basic"})
    return dict(await player.ok("POST", f"/v1/tables/{t['table_id']}/start"))


async def refused(player: Player, method: str, path: str, body: Any = None) -> None:
    status, answer = await player.call(method, path, body)
    assert (status, answer["code"]) == (409, "in_game"), (path, status, answer)


async def games_of(player: Player) -> list[str]:
    return [g["game_id"] for g in (await player.ok("GET", "/v1/me"))["games"]]


@pytest.fixture
async def ada_and_ben(platform: Platform) -> AsyncIterator[tuple[Player, Player]]:
    ada = await Player.guest(platform.a.url, "Ada")
    ben = await Player.guest(platform.b.url, "Ben")
    yield ada, ben
    await asyncio.gather(ada.aclose(), ben.aclose())


async def test_a_person_playing_takes_no_seat_at_another_table(
        ada_and_ben: tuple[Player, Player]) -> None:
    ada, ben = ada_and_ben
    first = await playing(ada)
    await refused(ada, "POST", "/v1/tables", {"rules": "quick", "seat": 0})
    other = await ben.ok("POST", "/v1/tables", {"rules": "quick", "private": True})
    await refused(ada, "POST", f"/v1/tables/{other['table_id']}/join", {"seat": 1})
    await refused(ada, "POST", "/v1/tables/join", {"code": other["code"], "seat": 1})
    # Her own table's seat is hers to come back to.
    back = await ada.ok("POST", f"/v1/tables/{first['table_id']}/join")
    assert back["game_id"] == first["game_id"]
    assert await games_of(ada) == [first["game_id"]]


async def test_two_tables_started_at_once_seat_a_person_in_one_game(
        platform: Platform, ada_and_ben: tuple[Player, Player]) -> None:
    ada, ben = ada_and_ben
    cy = await Player.guest(platform.a.url, "Cy")
    try:
        tables = [await host.ok("POST", "/v1/tables", {"rules": LONG, "private": True})
                  for host in (ben, cy)]
        for t in tables:  # Ada sits at both while neither plays: allowed
            await ada.ok("POST", "/v1/tables/join", {"code": t["code"], "seat": 1})
        for host, t in zip((ben, cy), tables, strict=True):
            await host.ok("POST", f"/v1/tables/{t['table_id']}/bots", {"level": "basic"})
        answers = await asyncio.gather(*(host.call("POST", f"/v1/tables/{t['table_id']}/start")
                                         for host, t in zip((ben, cy), tables, strict=True)))
        assert sorted(status for status, _ in answers) == [200, 409], answers
        [(_, started)] = [a for a in answers if a[0] == 200]
        [(_, no)] = [a for a in answers if a[0] == 409]
        assert no["code"] == "in_game" and "Ada" in no["message"]
        assert await games_of(ada) == [started["game_id"]]
        still = [await ben.ok("GET", f"/v1/tables/{t['table_id']}") for t in tables]
        assert sorted(t["state"] for t in still) == ["open", "playing"]
    finally:
        await cy.aclose()


async def test_a_person_playing_elsewhere_cannot_ask_to_play_again(
        platform: Platform) -> None:
    async with finished_table(platform, ONE_HAND) as (ada, ben, t):
        elsewhere = await playing(ada)
        await refused(ada, "POST", f"/v1/tables/{t['table_id']}/again")
        asked = await ben.ok("POST", f"/v1/tables/{t['table_id']}/again")
        assert asked["state"] == "open"
        await refused(ada, "POST", f"/v1/tables/{t['table_id']}/again")
        assert await games_of(ada) == [elsewhere["game_id"]]


def checked(seats: tuple[MatchSeat, ...]) -> OpenMatch:
    """A tournament's match with a ready check, as the tournament service asks for it."""
    return OpenMatch(match_id=f"cup-{uuid.uuid4().hex}", seats=seats,  # type: ignore[arg-type]
                     rules=ONE_HAND, rated=False, origin="tournament", origin_id="cup-1",
                     ready_seconds=60)


async def test_a_ready_check_waits_for_a_person_playing_elsewhere(
        platform: Platform, ada_and_ben: tuple[Player, Player], nc: Client,
        nats_prefix: str) -> None:
    ada, ben = ada_and_ben
    first = await playing(ada)
    seats = (MatchSeat(player_id=ada.player_id), MatchSeat(bot="basic"),
             MatchSeat(player_id=ben.player_id), MatchSeat(bot="basic"))
    opened = await open_match(nc, f"{nats_prefix}e2e", checked(seats))
    assert opened.state == "ready_check"
    await refused(ada, "POST", f"/v1/matches/{opened.match_id}/ready")
    waiting = await ben.ok("POST", f"/v1/matches/{opened.match_id}/ready")
    assert waiting["state"] == "ready_check" and 0 not in waiting["ready"]
    assert await games_of(ada) == [first["game_id"]]


async def test_a_confirmation_is_taken_back_from_one_who_went_to_play_elsewhere(
        platform: Platform, ada_and_ben: tuple[Player, Player], nc: Client,
        nats_prefix: str) -> None:
    ada, ben = ada_and_ben
    seats = (MatchSeat(player_id=ada.player_id), MatchSeat(bot="basic"),
             MatchSeat(player_id=ben.player_id), MatchSeat(bot="basic"))
    opened = await open_match(nc, f"{nats_prefix}e2e", checked(seats))
    confirmed = await ada.ok("POST", f"/v1/matches/{opened.match_id}/ready")
    assert 0 in confirmed["ready"]
    adas = await ada.socket(platform.a.ws_url)
    try:
        first = await playing(ada)
        waiting = await ben.ok("POST", f"/v1/matches/{opened.match_id}/ready")
        assert waiting["state"] == "ready_check" and 0 not in waiting["ready"]
        again = await adas.until(lambda f: f["type"] == "note"
                                 and f["note"]["kind"] == "match_offered", 15)
        assert again["note"]["match_id"] == opened.match_id
        assert await games_of(ada) == [first["game_id"]]
    finally:
        await adas.close()


async def test_the_end_a_player_saw_frees_them_before_the_lobby_records_it(
        platform: Platform, database_url: str) -> None:
    """The games projection stalled: the game's own store says it ended, and that is
    what frees its players, at once."""
    conn = await asyncpg.connect(database_url)
    ada, ben, _, seats = await two_and_bots(platform, ("Ada", "Ben"), ONE_HAND)
    try:
        async with conn.transaction():
            await conn.execute("LOCK TABLE lobby.games IN EXCLUSIVE MODE")
            await play_until_over(seats)
            nxt = await playing(ada)
            assert await games_of(ada) == [nxt["game_id"]]
    finally:
        await conn.close()
        for s in seats:
            await s.sock.close()
        await asyncio.gather(ada.aclose(), ben.aclose())
