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
            # Each event frame says the phase the game is in once it applied.
            assert {f.phase for f in game.events} <= {"dealing", "bidding", "passing", "play",
                                                      "over"}
            assert game.events[-1].phase == "over"
            assert all(f.phase == "play" for f in game.events
                       if isinstance(f.event, ev.CardPlayed) and f.event.card)
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


async def test_a_socket_that_cannot_come_back_ends_in_connection_error_after_its_tries(
        ) -> None:
    """Nobody listens on the port: each try is refused, the waits double from 0.1 s
    (0.1 + 0.2 + 0.4 before three tries), then the client gives up, typed."""
    import socket

    with socket.socket() as s:  # a port nothing listens on once this closes
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    loop = asyncio.get_running_loop()
    for tries, least in ((3, 0.7), (0, 0.0)):
        game = GameConnection(f"ws://127.0.0.1:{port}/v1/ws", "token", "g1",
                              reconnects=tries)
        began = loop.time()
        with pytest.raises(ConnectionError, match="could not resume game g1"):
            await game._resume()
        assert least <= loop.time() - began < least + 5.0
        assert game.resumes == 0
