"""The game, not the table row, says who sits where: who follows as which seat, who may act."""

from __future__ import annotations

import asyncio
import json
import uuid

import asyncpg
from msgspec.structs import replace

from engine.presets import CLASSIC
from schemas.gamebus import CreateGame, GameReply
from schemas.subjects import Names
from services.platform import bus, connection
from tests.e2e.conftest import Platform
from tests.e2e.players import Seat, play_until_over, started, until_my_turn
from tests.services.lobby.harness import Player


async def test_a_game_that_no_table_opened_is_played_over_the_socket(
        platform: Platform, nats_url: str, nats_prefix: str, database_url: str) -> None:
    ann = await Player.guest(platform.a.url, "Ann")
    bob = await Player.guest(platform.b.url, "Bob")
    game_id = f"direct-{uuid.uuid4().hex[:8]}"
    nc = await connection.connect(nats_url, "test")
    try:
        reply = await bus.request(nc, Names(f"{nats_prefix}e2e").game_create, CreateGame(
            game_id=game_id, command_id="create", rules=replace(CLASSIC, target=None, max_hands=1),
            players=(ann.player_id, "bot:basic", bob.player_id, "bot:basic")), GameReply)
        assert reply.ok
    finally:
        await nc.close()
    conn = await asyncpg.connect(database_url)
    try:
        assert await conn.fetchval("SELECT count(*) FROM lobby.game_tables WHERE game_id = $1",
                                   game_id) == 0
    finally:
        await conn.close()
    seats = [Seat(ann, await ann.socket(platform.a.ws_url), game_id),
             Seat(bob, await bob.socket(platform.b.ws_url), game_id)]
    for s in seats:
        subscribed = await s.subscribe()
        assert subscribed["table_id"] == ""
    assert [s.seat for s in seats] == [0, 2]
    await play_until_over(seats)
    assert all(s.ended is not None for s in seats)
    for s in seats:
        await s.sock.close()
    await asyncio.gather(ann.aclose(), bob.aclose())


async def test_a_seat_written_into_the_table_row_gives_no_seat_in_the_game(
        platform: Platform, database_url: str) -> None:
    ada, seat, _ = await started(platform, "Ada")
    eve = await Player.guest(platform.b.url, "Eve")
    conn = await asyncpg.connect(database_url)
    try:  # tamper: the row now seats Eve where a bot plays
        row = await conn.fetchrow("SELECT table_id, seats FROM lobby.game_tables"
                                  " WHERE game_id = $1", seat.game_id)
        seats = json.loads(row["seats"])
        seats[1] = {"player_id": eve.player_id, "name": "Eve", "bot": None}
        await conn.execute("UPDATE lobby.game_tables SET seats = $2 WHERE game_id = $1",
                           seat.game_id, json.dumps(seats))
    finally:
        await conn.close()
    sock = await eve.socket(platform.b.ws_url)
    for by in ({"game_id": seat.game_id}, {"table_id": str(row["table_id"])}):
        await sock.send({"type": "subscribe", **by})
        assert (await sock.of_type("error"))["code"] == "not_in_game"
    await sock.send({"type": "subscribe", "game_id": seat.game_id, "spectate": True})
    subscribed = await sock.of_type("subscribed")
    assert subscribed["seat"] is None
    for kind, extra in (("bid", {"bid": 3}), ("look", {}), ("play", {"card": "AS"}),
                        ("leave", {})):
        await sock.send({"type": kind, "command_id": f"e-{kind}", "game_id": seat.game_id,
                         "seat": 1, **extra})
        err = await sock.until(lambda f: f["type"] == "error")
        assert (err["code"], err["command_id"]) == ("not_your_seat", f"e-{kind}")
    await until_my_turn(seat, "legal_bids")  # Ada's own seat still answers to her
    await seat.sock.send({"type": "bid", "command_id": "mine", "game_id": seat.game_id,
                          "seat": seat.seat, "bid": seat.turn["legal_bids"][0]})  # type: ignore[index]
    ack = await seat.sock.until(lambda f: f.get("command_id") == "mine")
    assert ack["type"] == "ack"
    await sock.close()
    await seat.sock.close()
    await asyncio.gather(ada.aclose(), eve.aclose())


async def test_a_bot_in_the_seat_takes_the_players_say_until_the_player_comes_back(
        platform: Platform) -> None:
    ada, seat, _ = await started(platform, "Ada")
    await seat.sock.send({"type": "leave", "command_id": "bye", "game_id": seat.game_id,
                          "seat": seat.seat})
    await seat.sock.until(lambda f: f["type"] == "event"
                          and f["event"]["type"] == "SeatTakenByBot")
    await seat.sock.send({"type": "bid", "command_id": "while-away", "game_id": seat.game_id,
                          "seat": seat.seat, "bid": 3})
    err = await seat.sock.until(lambda f: f.get("command_id") == "while-away")
    assert (err["type"], err["code"]) == ("error", "seat_is_bot")
    back = Seat(ada, await ada.socket(platform.b.ws_url), seat.game_id)
    await back.subscribe()  # subscribing again takes the seat back
    assert back.view is not None and not back.view["bots"][seat.seat]
    await until_my_turn(back, "legal_bids")
    await back.sock.send({"type": "bid", "command_id": "home", "game_id": seat.game_id,
                          "seat": back.seat, "bid": back.turn["legal_bids"][0]})  # type: ignore[index]
    ack = await back.sock.until(lambda f: f.get("command_id") == "home")
    assert ack["type"] == "ack"
    for s in (seat, back):
        await s.sock.close()
    await ada.aclose()
