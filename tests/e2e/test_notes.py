"""Notes to one player reach every socket of that player, on any gateway; and
GET /v1/me names the games a player sits in, whoever opened them."""

from __future__ import annotations

import asyncio
import uuid

import msgspec
from msgspec.structs import replace

from engine.presets import CLASSIC
from schemas.gamebus import CreateGame, GameReply
from schemas.notes import MatchStarted, RatingChanged
from schemas.subjects import Names
from services.platform import bus, connection
from tests.e2e.conftest import Platform
from tests.e2e.players import started
from tests.services.lobby.harness import Player, Socket
from tests.waiting import until


async def _quiet(sock: Socket) -> list[dict[str, object]]:
    """Every frame up to the answer of a ping: what the socket got meanwhile."""
    nonce = uuid.uuid4().hex
    await sock.send({"type": "ping", "nonce": nonce})
    got: list[dict[str, object]] = []
    while True:
        frame = await sock.recv()
        if frame == {"type": "pong", "v": 1, "nonce": nonce, "at": frame.get("at")}:
            return got
        got.append(frame)


async def test_a_note_reaches_all_of_its_players_sockets_on_every_gateway_and_no_one_else(
        platform: Platform, nats_url: str, nats_prefix: str) -> None:
    ann = await Player.guest(platform.a.url, "Ann")
    bob = await Player.guest(platform.b.url, "Bob")
    anns = [await ann.socket(platform.a.ws_url), await ann.socket(platform.b.ws_url),
            await ann.socket(platform.b.ws_url)]
    bobs = [await bob.socket(platform.a.ws_url), await bob.socket(platform.b.ws_url)]
    note = MatchStarted(match_id="m1", origin="queue", origin_id="q1", table_id="t1",
                        game_id="g1", seat=2, rated=True)
    nc = await connection.connect(nats_url, "test")
    try:
        await asyncio.sleep(0.2)  # both gateways listen since they started; settle the sockets
        await nc.publish(Names(f"{nats_prefix}e2e").player_note(ann.player_id),
                         msgspec.msgpack.encode(note))
        await nc.flush()
        for sock in anns:
            frame = await sock.of_type("note")
            assert frame["note"] == {"kind": "match_started", **msgspec.to_builtins(note)}
        for sock in bobs:
            assert await _quiet(sock) == []
        await nc.publish(Names(f"{nats_prefix}e2e").player_note(bob.player_id),
                         msgspec.msgpack.encode(RatingChanged(game_id="g1", rating_before=1500,
                                                              rating_after=1516)))
        for sock in bobs:
            assert (await sock.of_type("note"))["note"]["rating_after"] == 1516
        for sock in anns:
            assert [f for f in await _quiet(sock) if f["type"] == "note"] == []
    finally:
        await nc.close()
    for sock in anns + bobs:
        await sock.close()
    await asyncio.gather(ann.aclose(), bob.aclose())


async def test_me_names_the_running_games_and_tables_of_the_caller(
        platform: Platform, nats_url: str, nats_prefix: str) -> None:
    ada, seat, _ = await started(platform, "Ada")
    again = await Player.guest(platform.b.url, "Ada elsewhere")
    me = await ada.ok("GET", "/v1/me")
    assert me["player_id"] == ada.player_id and me["name"] == "Ada"
    assert me["games"] == [{"game_id": seat.game_id, "table_id": me["tables"][0]["table_id"],
                            "seat": 0}]
    assert [t["game_id"] for t in me["tables"]] == [seat.game_id]
    assert await again.ok("GET", "/v1/me") == {"player_id": again.player_id,
                                               "name": "Ada elsewhere", "games": [],
                                               "tables": [], "offers": [],
                                               "role": "player"}
    # A game no table opened is found too (through the games projection).
    game_id = f"me-{uuid.uuid4().hex[:8]}"
    nc = await connection.connect(nats_url, "test")
    try:
        reply = await bus.request(nc, Names(f"{nats_prefix}e2e").game_create, CreateGame(
            game_id=game_id, command_id="create", rules=replace(CLASSIC, target=None,
                                                                max_hands=1),
            players=("bot:basic", again.player_id, "bot:basic", "bot:basic")), GameReply)
        assert reply.ok
    finally:
        await nc.close()

    async def listed() -> list[dict[str, object]]:
        return list((await again.ok("GET", "/v1/me"))["games"])
    assert await until(listed) == [{"game_id": game_id, "table_id": "", "seat": 1}]
    await seat.sock.close()
    await asyncio.gather(ada.aclose(), again.aclose())
