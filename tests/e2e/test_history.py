"""A player's own games over HTTP: the list with its score sheets, and the replay of a
finished game, on the whole platform; who else may see them."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
from nats.aio.client import Client

from tests.e2e.conftest import Platform
from tests.e2e.players import Seat, play_until_over, two_and_bots
from tests.e2e.test_matches import rated_match
from tests.e2e.test_play_again import ONE_HAND, finished_table
from tests.services.lobby.harness import Player, Service
from tests.waiting import until


async def listed(player: Player, whose: str, game_id: str) -> dict[str, Any]:
    async def found() -> dict[str, Any] | None:
        page = await player.ok("GET", f"/v1/players/{whose}/games")
        return next((g for g in page["games"] if g["game_id"] == game_id), None)

    return await until(found)


async def test_a_finished_game_is_in_each_players_list_with_its_score_sheet(
        platform: Platform) -> None:
    async with finished_table(platform, ONE_HAND) as (ada, ben, t):
        game_id = t["game_id"]
        mine = await listed(ada, ada.player_id, game_id)
        assert (mine["seat"], mine["team"], mine["origin"], mine["rated"]) == (0, 0, "table",
                                                                              False)
        assert mine["table_id"] == t["table_id"] and mine["tournament"] is None
        assert [p["player_id"] for p in mine["players"]] == \
            [ada.player_id, ben.player_id, "bot:basic", "bot:basic"]
        assert [p["name"] for p in mine["players"]] == \
            ["Ada", "Ben", "Bot 3 (basic)", "Bot 4 (basic)"]
        assert mine["partner"]["name"] == "Bot 3 (basic)"
        assert [p["name"] for p in mine["opponents"]] == ["Ben", "Bot 4 (basic)"]
        assert mine["rules"]["max_hands"] == 1 and mine["reason"] == "hands"
        assert mine["started_at"] <= mine["ended_at"]
        summary = await ada.ok("GET", f"/v1/games/{game_id}")
        assert (summary["origin"], summary["tournament"]) == ("table", None)
        [hand] = mine["hands"]
        assert hand["hand_no"] == 1 and sum(hand["tricks"]) == 13
        assert all(0 <= b <= 13 for b in hand["bids"])
        assert [team["score_after"] for team in hand["teams"]] == mine["scores"]
        us, them = mine["scores"]
        assert mine["result"] == ("win" if us > them else "loss" if us < them else "draw")
        theirs = await listed(ben, ben.player_id, game_id)
        assert (theirs["seat"], theirs["team"], theirs["scores"]) == (1, 1, mine["scores"])
        assert theirs["hands"] == mine["hands"]
        assert theirs["result"] == {"win": "loss", "loss": "win", "draw": "draw"}[mine["result"]]
        # Ben, who sat in Ada's private game, sees it in her list too.
        assert (await listed(ben, ada.player_id, game_id))["seat"] == 0


async def test_a_player_replays_a_game_they_played_and_nobody_else_does(
        platform: Platform) -> None:
    async with finished_table(platform, ONE_HAND) as (ada, _, t):
        game_id = t["game_id"]
        await listed(ada, ada.player_id, game_id)
        log = await ada.ok("GET", f"/v1/games/{game_id}/replay")
        assert log["over"] is True and log["version"] == len(log["events"])
        assert log["events"][0]["event"]["type"] == "GameStarted"
        assert log["events"][-1]["event"]["type"] == "GameEnded"
        assert log["names"][:2] == ["Ada", "Ben"]
        dealt = next(e["version"] for e in log["events"] if e["event"]["type"] == "HandDealt")
        at = await ada.ok("GET", f"/v1/games/{game_id}/replay/state?at={dealt}")
        assert at["at"] == dealt and all(len(h) == 13 for h in at["state"]["hands"])
        cy = await Player.guest(platform.a.url, "Cy")
        try:
            page = await cy.ok("GET", f"/v1/players/{ada.player_id}/games")
            assert game_id not in [g["game_id"] for g in page["games"]]  # a private table
            for path in (f"/v1/games/{game_id}/replay", f"/v1/games/{game_id}/replay/state"):
                status, body = await cy.call("GET", path)
                assert (status, body["code"]) == (403, "not_your_game"), body
            status, body = await ada.call("GET", "/v1/games/0123456789abcdef/replay")
            assert (status, body["code"]) == (404, "game_not_found")
            status, body = await cy.call("GET", "/v1/players/p-nobody/games")
            assert (status, body["code"]) == (404, "player_not_found")
        finally:
            await cy.aclose()


async def test_a_stranger_sees_a_players_ranked_game_in_both_their_games_and_ratings(
        platform: Platform, ratings_beside: Service, nc: Client, nats_prefix: str) -> None:
    """A rated game is nobody's secret: the ratings list shows it to anyone, and so does
    the player's list of games, to the player and to a stranger alike."""
    opened, people, socks = await rated_match(platform, nc, nats_prefix, "hist")
    seats = [Seat(p, s, opened.game_id) for p, s in zip(people, socks, strict=True)]
    for s in seats:
        await s.subscribe()
    await play_until_over(seats)
    ada, game_id = people[0], opened.game_id
    stranger = await Player.guest(platform.b.url, "Stranger")
    try:
        for asker in (ada, stranger):
            async def rated(asker: Player = asker) -> dict[str, Any] | None:
                page = await asker.ok("GET", f"/v1/players/{ada.player_id}/ratings")
                return next((e for e in page["entries"] if e["game_id"] == game_id), None)

            change = await until(rated, timeout=30)
            game = await listed(asker, ada.player_id, game_id)
            assert (game["origin"], game["rated"], game["seat"]) == ("queue", True, 0)
            assert game["rating"]["delta"] == change["delta"]
            assert [o["player_id"] for o in game["opponents"]] == \
                [o["player_id"] for o in change["opponents"]]
    finally:
        for s in seats:
            await s.sock.close()
        await asyncio.gather(stranger.aclose(), *(p.aclose() for p in people))


@contextlib.asynccontextmanager
async def history_held_back(database_url: str) -> AsyncIterator[None]:
    """The lobby's history projection stalled (its table locked against writes, as a
    lobby copy killed mid-fetch leaves a game's end unprojected for seconds); reads go on."""
    conn = await asyncpg.connect(database_url)
    try:
        async with conn.transaction():
            await conn.execute("LOCK TABLE lobby.player_games IN EXCLUSIVE MODE")
            yield
    finally:
        await conn.close()


async def test_a_game_is_replayed_the_moment_its_end_reaches_the_players_socket(
        platform: Platform, database_url: str) -> None:
    async with history_held_back(database_url):
        ada, ben, t, seats = await two_and_bots(platform, ("Ada", "Ben"), ONE_HAND)
        cy = await Player.guest(platform.b.url, "Cy")
        try:
            await play_until_over(seats)
            game_id = t["game_id"]
            for who in (ada, ben):
                log = await who.ok("GET", f"/v1/games/{game_id}/replay")
                assert log["over"] is True and log["names"][:2] == ["Ada", "Ben"]
                assert log["events"][-1]["event"]["type"] == "GameEnded"
                at = await who.ok("GET", f"/v1/games/{game_id}/replay/state?at=1")
                assert at["at"] == 1
            for path in (f"/v1/games/{game_id}/replay", f"/v1/games/{game_id}/replay/state"):
                status, body = await cy.call("GET", path)
                assert (status, body["code"]) == (403, "not_your_game"), body
            status, body = await cy.call("GET", "/v1/games/0123456789abcdef/replay")
            assert (status, body["code"]) == (404, "game_not_found")
        finally:
            for s in seats:
                await s.sock.close()
            await asyncio.gather(ada.aclose(), ben.aclose(), cy.aclose())
