"""Table talk: people's lines to everyone at the table, limits, bots' lines, muting, the switch."""

from __future__ import annotations

import asyncio

import msgspec

from schemas.gamebus import ChatLine
from schemas.subjects import Names
from services.platform import connection
from tests.e2e.conftest import Platform
from tests.services.lobby.harness import Player


async def test_people_and_bots_talk_at_the_table(platform: Platform, nats_url: str,
                                                 nats_prefix: str) -> None:
    ada = await Player.guest(platform.a.url, "Ada")
    bob = await Player.guest(platform.b.url, "Bob")
    t = await ada.ok("POST", "/v1/tables", {"rules": "house", "private": True})
    await bob.ok("POST", "/v1/tables/join", {"code": t["code"], "seat": 2})
    t = await ada.ok("POST", f"/v1/tables/{t['table_id']}/start")
    game = t["game_id"]
    a, b = await ada.socket(platform.a.ws_url), await bob.socket(platform.b.ws_url)
    for s in (a, b):
        await s.send({"type": "subscribe", "game_id": game})
        await s.of_type("subscribed")

    await a.send({"type": "chat", "game_id": game, "text": "good luck, partner"})
    for s in (a, b):
        line = await s.until(lambda f: f["type"] == "chat")
        assert (line["name"], line["seat"], line["text"], line["bot"]) == (
            "Ada", 0, "good luck, partner", False)

    await a.send({"type": "chat", "game_id": game, "text": "x" * 201})
    assert (await a.of_type("error"))["code"] == "chat_too_long"
    for i in range(4):  # the burst is three lines
        await b.send({"type": "chat", "game_id": game, "text": f"spam {i}"})
    limited = await b.until(lambda f: f["type"] == "error")
    assert limited["code"] == "chat_rate_limited"

    nc = await connection.connect(nats_url, "test")
    names = Names(f"{nats_prefix}e2e")

    async def bot_says(text: str) -> None:
        line = ChatLine(game_id=game, seat=1, player_id="bot:basic", text=text, bot=True,
                        name="Bot 2")
        await nc.publish(names.game_chat(game), msgspec.msgpack.encode(line))
        await nc.flush()

    await b.send({"type": "mute_bots", "game_id": game})
    await b.send({"type": "ping", "nonce": "muted"})
    await b.until(lambda f: f.get("nonce") == "muted")
    await bot_says("nice set!")
    assert (await a.until(lambda f: f["type"] == "chat" and f["bot"]))["text"] == "nice set!"
    await asyncio.sleep(1.1)
    await a.send({"type": "chat", "game_id": game, "text": "after the bot"})
    nxt = await b.until(lambda f: f["type"] == "chat" and f["text"] != "good luck, partner"
                        and not f["text"].startswith("spam"))
    assert nxt["text"] == "after the bot"  # the bot's line never reached Bob

    await ada.ok("PATCH", f"/v1/tables/{t['table_id']}", {"banter": False})
    await asyncio.sleep(0.5)  # every gateway hears of the switch
    await bot_says("boston!")
    await asyncio.sleep(1.1)
    await a.send({"type": "chat", "game_id": game, "text": "quiet now"})
    nxt = await a.until(lambda f: f["type"] == "chat" and f["text"] in ("boston!", "quiet now"))
    assert nxt["text"] == "quiet now"

    await nc.close()
    for s in (a, b):
        await s.close()
    await asyncio.gather(ada.aclose(), bob.aclose())
