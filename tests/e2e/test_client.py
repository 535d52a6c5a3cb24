"""The typed client (spades_client) plays whole games through both gateways: sign-in,
a private table joined by its room code, each seat on its own socket, a dropped socket
resumed mid-game, and typed errors."""

from __future__ import annotations

import asyncio

import pytest

from schemas import events as ev
from spades_client import ApiFailure, CommandRejected, GameConnection, Lobby, Move
from tests.e2e.conftest import Platform
from tests.e2e.players import play_typed


async def test_four_typed_clients_play_a_match_and_one_resumes_after_a_dropped_socket(
        platform: Platform) -> None:
    lobbies = [Lobby(gw.url) for gw in (platform.a, platform.b, platform.a, platform.b)]
    try:
        for i, lobby in enumerate(lobbies):
            await lobby.guest(f"Typed {i}")
        table = await lobbies[0].create_table("quick", private=True, banter=False)
        assert table.code is not None and table.seats[0].name == "Typed 0"
        for i in (1, 2, 3):
            joined = await lobbies[i].join_by_code(table.code.lower(), seat=i)
            assert joined.seats[i].player_id == lobbies[i].session.player_id  # type: ignore[union-attr]
        started = await lobbies[0].start(table.table_id)
        assert started.game_id is not None and started.state == "playing"
        games = [GameConnection(lobby.ws_url, lobby.token, started.game_id)
                 for lobby in lobbies]
        for seat, game in enumerate(games):
            subscribed = await game.open()
            assert subscribed.seat == seat and game.view is not None
        await asyncio.gather(*(play_typed(g, drop_after=30 if i == 2 else None)
                               for i, g in enumerate(games)))
        assert games[2].resumes == 1
        for game in games:
            assert game.ended is not None
            versions = [f.version for f in game.events]
            assert versions == sorted(set(versions))  # in order, none twice
        assert len({g.ended.scores for g in games if g.ended}) == 1
        summary = await lobbies[1].game(started.game_id)
        assert summary.state == "over" and summary.scores == games[0].ended.scores  # type: ignore[union-attr]
        assert isinstance(games[0].ended, ev.GameEnded)
        for game in games:
            await game.close()
    finally:
        for lobby in lobbies:
            await lobby.aclose()


async def test_the_client_raises_typed_errors(platform: Platform) -> None:
    lobby = Lobby(platform.a.url)
    try:
        with pytest.raises(ApiFailure) as bad:
            await lobby.login("nobody-at-all", "not the password")
        assert (bad.value.status, bad.value.code) == (401, "bad_credentials")
        await lobby.guest("Typed errors")
        with pytest.raises(ApiFailure) as missing:
            await lobby.join_by_code("ZZZZZZ")
        assert (missing.value.status, missing.value.code) == (404, "table_not_found")
        table = await lobby.create_table("quick", private=True)
        await lobby.set_bots(table.table_id)
        started = await lobby.start(table.table_id)
        assert started.game_id is not None
        game = GameConnection(lobby.ws_url, lobby.token, started.game_id)
        await game.open()
        async with asyncio.timeout(30):
            while not game.my_turn():
                await game.next()
        assert game.turn is not None and game.turn.legal_bids and not game.turn.legal_cards
        with pytest.raises(CommandRejected) as wrong:
            await game.command(Move.play("AS"))  # a card while the seat must bid
        assert wrong.value.error.code == "wrong_phase"
        assert game.pending is None
        await game.close()
    finally:
        await lobby.aclose()
