"""Playing again at the same table: the same table id, the same seats, a new game
started through the same start path; the people asked, each agreeing or leaving."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import pytest

from spades_client import ApiFailure, Lobby
from tests.e2e.conftest import Platform
from tests.e2e.players import Seat, play_until_over, two_and_bots
from tests.services.lobby.harness import Player, Socket
from tests.waiting import until

ONE_HAND = {"preset": "house", "max_hands": 1}


@contextlib.asynccontextmanager
async def finished_table(platform: Platform, rules: dict[str, Any]
                         ) -> AsyncIterator[tuple[Player, Player, dict[str, Any]]]:
    """Ada (seat 0, host) and Ben (seat 1) with bots at 2 and 3 play one private game
    to its end; yields them and the table, over."""
    ada, ben, t, seats = await two_and_bots(platform, ("Ada", "Ben"), rules)
    try:
        await play_until_over(seats)

        async def over() -> dict[str, Any] | None:
            row = await ada.ok("GET", f"/v1/tables/{t['table_id']}")
            return row if row["state"] == "over" else None

        t = await until(over)
        for s in seats:
            await s.sock.close()
        yield ada, ben, t
    finally:
        await ada.aclose()
        await ben.aclose()


async def _note(sock: Socket, kind: str) -> dict[str, Any]:
    frame = await sock.until(lambda f: f["type"] == "note" and f["note"]["kind"] == kind, 15)
    return frame["note"]


async def test_both_agree_and_a_new_game_starts_at_the_same_table_with_the_same_seats(
        platform: Platform) -> None:
    async with finished_table(platform, ONE_HAND) as (ada, ben, t):
        table_id, old_game = t["table_id"], t["game_id"]
        bens = await ben.socket(platform.b.ws_url)
        adas = await ada.socket(platform.a.ws_url)
        asked = await ada.ok("POST", f"/v1/tables/{table_id}/again")
        assert asked["state"] == "open" and asked["game_id"] is None
        assert asked["play_again"] == [True, False, True, True]
        assert [s.get("player_id") for s in asked["seats"][:2]] == [ada.player_id, ben.player_id]
        note = await _note(bens, "play_again_asked")
        assert note == {"kind": "play_again_asked", "table_id": table_id,
                        "game_id": old_game, "asked_by": "Ada", "seat": 1}
        # The asker is not asked; asking twice changes nothing.
        assert await ada.ok("POST", f"/v1/tables/{table_id}/again") == asked
        agreed = await ben.ok("POST", f"/v1/tables/{table_id}/again")
        assert agreed["table_id"] == table_id and agreed["state"] == "playing"
        new_game = agreed["game_id"]
        assert new_game and new_game != old_game and agreed["play_again"] is None
        assert [s.get("player_id") for s in agreed["seats"]] == \
            [ada.player_id, ben.player_id, None, None]
        assert [s.get("bot") for s in agreed["seats"]] == [None, None, "basic", "basic"]
        for sock, seat in ((adas, 0), (bens, 1)):
            started = await _note(sock, "match_started")
            assert (started["game_id"], started["table_id"], started["seat"],
                    started["origin"]) == (new_game, table_id, seat, "table")
        # The new game seats them where they sat; the old one is still found, over.
        play = Seat(ben, bens, new_game)
        assert (await play.subscribe())["seat"] == 1
        old = await ada.ok("GET", f"/v1/games/{old_game}")
        assert old["table_id"] == table_id and old["state"] == "over"
        assert [p.get("name") for p in old["players"]] == ["Ada", "Ben", "Bot 3", "Bot 4"]
        assert (await ada.ok("GET", f"/v1/games/{new_game}"))["table_id"] == table_id


async def test_one_who_leaves_gives_the_seat_to_a_bot_when_the_rules_say_so(
        platform: Platform) -> None:
    async with finished_table(platform, {**ONE_HAND, "abandon": "bot"}) as (ada, ben, t):
        await ada.ok("POST", f"/v1/tables/{t['table_id']}/again")
        left = await ben.ok("POST", f"/v1/tables/{t['table_id']}/leave")
        # Ben's seat went to a bot: every seat agreed, and the game began at once.
        assert left["state"] == "playing" and left["game_id"] != t["game_id"]
        assert (left["seats"][1].get("player_id"), left["seats"][1].get("bot")) == \
            (None, "basic")
        assert (await ben.ok("GET", "/v1/me"))["games"] == []


async def test_one_who_leaves_frees_the_seat_for_a_newcomer_when_leavers_forfeit(
        platform: Platform) -> None:
    async with finished_table(platform, {**ONE_HAND, "abandon": "forfeit"}) as (ada, ben, t):
        cleo = await Player.guest(platform.a.url, "Cleo")
        await ada.ok("POST", f"/v1/tables/{t['table_id']}/again")
        left = await ben.ok("POST", f"/v1/tables/{t['table_id']}/leave")
        assert left["state"] == "open" and left["free_seats"] == [1]
        assert left["play_again"] == [True, False, True, True]
        joined = await cleo.ok("POST", "/v1/tables/join", {"code": t["code"]})
        # Sitting down is agreeing: the last seat filled and agreed starts the game.
        assert joined["state"] == "playing" and joined["game_id"] != t["game_id"]
        assert joined["seats"][1].get("player_id") == cleo.player_id
        await cleo.aclose()


async def test_the_host_may_start_sooner_and_a_person_who_did_not_agree_gets_a_bot(
        platform: Platform) -> None:
    async with finished_table(platform, ONE_HAND) as (ada, ben, t):
        await ada.ok("POST", f"/v1/tables/{t['table_id']}/again")
        status, body = await ben.call("POST", f"/v1/tables/{t['table_id']}/start")
        assert (status, body["code"]) == (403, "not_host")
        started = await ada.ok("POST", f"/v1/tables/{t['table_id']}/start")
        assert started["state"] == "playing" and started["game_id"] != t["game_id"]
        assert started["seats"][0].get("player_id") == ada.player_id
        assert (started["seats"][1].get("player_id"), started["seats"][1].get("bot")) == \
            (None, "basic")
        # Ben answers too late: he sits there no more (the typed client says so).
        late = Lobby(platform.b.url, http=ben.http)
        with pytest.raises(ApiFailure) as refused:
            await late.play_again(t["table_id"])
        assert (refused.value.status, refused.value.code) == (409, "not_seated")


async def test_play_again_refuses_with_typed_errors_and_changes_nothing(
        platform: Platform) -> None:
    ada = await Player.guest(platform.a.url, "Ada")
    eve = await Player.guest(platform.a.url, "Eve")
    try:
        t = await ada.ok("POST", "/v1/tables", {"rules": "house", "private": True})
        path = f"/v1/tables/{t['table_id']}/again"
        for who, code in ((ada, "no_game_yet"), (eve, "not_seated")):
            status, body = await who.call("POST", path)
            assert (status, body["code"]) == (409, code), body
            assert set(body) == {"code", "message"}
        await ada.ok("POST", f"/v1/tables/{t['table_id']}/bots", {"level": "basic"})
        playing = await ada.ok("POST", f"/v1/tables/{t['table_id']}/start")
        status, body = await ada.call("POST", path)
        assert (status, body["code"]) == (409, "game_running")
        assert await ada.ok("GET", f"/v1/tables/{t['table_id']}") == playing
        status, body = await ada.call("POST", "/v1/tables/00000000-0000-0000-0000-000000000000"
                                              "/again")
        assert (status, body["code"]) == (404, "table_not_found")
    finally:
        await ada.aclose()
        await eve.aclose()


async def test_one_who_leaves_before_anyone_asks_gives_the_seat_up_for_the_next_game(
        platform: Platform) -> None:
    async with finished_table(platform, {**ONE_HAND, "abandon": "forfeit"}) as (ada, ben, t):
        left = await ben.ok("POST", f"/v1/tables/{t['table_id']}/leave")
        assert left["state"] == "over" and left["free_seats"] == [1]
        asked = await ada.ok("POST", f"/v1/tables/{t['table_id']}/again")
        assert asked["state"] == "open" and asked["play_again"] == [True, False, True, True]
        assert ben.player_id not in {s.get("player_id") for s in asked["seats"]}


async def test_a_game_that_ended_with_nobody_following_it_closes_its_table_and_plays_again(
        platform: Platform) -> None:
    """The table closes from the durable GameEnded consumer, not from a gateway that
    happens to follow the game: with nobody following, it still leaves the list."""
    ada = await Player.guest(platform.a.url, "Ada")
    try:
        t = await ada.ok("POST", "/v1/tables", {"rules": ONE_HAND, "private": True})
        t = await ada.ok("POST", f"/v1/tables/{t['table_id']}/start")
        await ada.ok("POST", f"/v1/tables/{t['table_id']}/leave")  # a bot plays it out

        async def over() -> bool:
            return (await ada.ok("GET", f"/v1/games/{t['game_id']}"))["state"] == "over"

        await until(over, timeout=30)

        async def closed() -> dict[str, Any] | None:
            row = await ada.ok("GET", f"/v1/tables/{t['table_id']}")
            return row if row["state"] == "over" else None

        await until(closed, timeout=10)
        row = await ada.ok("POST", f"/v1/tables/{t['table_id']}/again")
        assert row["state"] == "playing" and row["game_id"] != t["game_id"]
        assert row["seats"][0].get("player_id") == ada.player_id
    finally:
        await ada.aclose()


async def test_play_again_is_taken_the_moment_the_game_ends_whatever_the_projection(
        platform: Platform, database_url: str) -> None:
    """Asked as soon as ``GameEnded`` reached the sockets, while the lobby's projection of
    games' ends is held back (its table locked): the game's own store says it is over,
    so the ask is taken, not refused ``game_running``."""
    ada, ben, t, seats = await two_and_bots(platform, ("Ada", "Ben"), ONE_HAND)
    conn = await asyncpg.connect(database_url)
    try:
        async with conn.transaction():
            await conn.execute("LOCK TABLE lobby.games IN EXCLUSIVE MODE")
            await play_until_over(seats)
            asked = await ada.ok("POST", f"/v1/tables/{t['table_id']}/again")
            assert asked["state"] == "open"
            agreed = await ben.ok("POST", f"/v1/tables/{t['table_id']}/again")
            assert agreed["state"] == "playing" and agreed["game_id"] != t["game_id"]
    finally:
        await conn.close()
        for s in seats:
            await s.sock.close()
        await ada.aclose()
        await ben.aclose()
