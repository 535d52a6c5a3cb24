"""Commands through the gateway: one's own seat only, once per command id, typed rule errors."""

from __future__ import annotations

import asyncio

from engine.errors import CODES
from tests.e2e.conftest import Platform
from tests.e2e.players import started, until_my_turn
from tests.services.lobby.harness import Player


async def test_a_player_cannot_act_for_another_seat(platform: Platform) -> None:
    ada, seat, _ = await started(platform, "Ada")
    for other in (1, 2, 3):
        await seat.sock.send({"type": "bid", "command_id": f"x{other}", "game_id": seat.game_id,
                              "seat": other, "bid": 3})
        err = await seat.sock.until(lambda f: f["type"] == "error")
        assert (err["code"], err["command_id"]) == ("not_your_seat", f"x{other}")
    eve = await Player.guest(platform.b.url, "Eve")
    sock = await eve.socket(platform.b.ws_url)
    await sock.send({"type": "look", "command_id": "e1", "game_id": seat.game_id, "seat": 0})
    assert (await sock.of_type("error"))["code"] == "not_in_game"
    await sock.send({"type": "subscribe", "game_id": seat.game_id})
    assert (await sock.of_type("error"))["code"] == "not_in_game"  # no seat: spectate only
    await sock.send({"type": "subscribe", "game_id": seat.game_id, "spectate": True})
    await sock.of_type("subscribed")
    await sock.send({"type": "play", "command_id": "e2", "game_id": seat.game_id, "seat": 0,
                     "card": "AS"})
    assert (await sock.of_type("error"))["code"] == "not_your_seat"
    await seat.sock.send({"type": "subscribe", "game_id": seat.game_id, "spectate": True})
    assert (await seat.sock.of_type("error"))["code"] == "seated_cannot_spectate"
    await sock.close()
    await seat.sock.close()
    await asyncio.gather(ada.aclose(), eve.aclose())


async def test_a_duplicated_command_acts_once_and_gets_the_same_answer(
        platform: Platform) -> None:
    ada, seat, _ = await started(platform, "Ada")
    await until_my_turn(seat, "legal_bids")
    frame = {"type": "bid", "command_id": "same-id", "game_id": seat.game_id, "seat": seat.seat,
             "bid": 2}
    await seat.sock.send(frame)
    first = await seat.sock.until(lambda f: f["type"] == "ack" and f["command_id"] == "same-id")
    # The same id for another bid is refused: it must not be told "bid 5 placed".
    await seat.sock.send({**frame, "bid": 5})
    reused = await seat.sock.until(lambda f: f["type"] == "error"
                                   and f.get("command_id") == "same-id")
    assert reused["code"] == "command_id_reused"
    await seat.sock.send(frame)  # the very same command again: the first answer
    again = await seat.sock.until(lambda f: f["type"] == "ack" and f["command_id"] == "same-id")
    assert again["version"] == first["version"] and again["duplicate"] and not first["duplicate"]
    for _ in range(6):
        await seat.step()
    mine = [f["event"] for f in seat.sock.frames if f["type"] == "event"
            and f["event"]["type"] == "BidPlaced" and f["event"]["seat"] == seat.seat]
    assert [e["bid"] for e in mine] == [2]
    await seat.sock.close()
    await ada.aclose()


async def test_rule_violations_come_back_as_the_engines_typed_errors(platform: Platform) -> None:
    ada, seat, _ = await started(platform, "Ada")
    await until_my_turn(seat, "legal_cards")
    await seat.sock.send({"type": "play", "command_id": "bad-card", "game_id": seat.game_id,
                          "seat": seat.seat, "card": "ZZ"})
    err = await seat.sock.until(lambda f: f.get("command_id") == "bad-card")
    assert (err["type"], err["code"]) == ("error", "unknown_card")
    await seat.sock.send({"type": "bid", "command_id": "late-bid", "game_id": seat.game_id,
                          "seat": seat.seat, "bid": 4})
    err = await seat.sock.until(lambda f: f.get("command_id") == "late-bid")
    assert (err["type"], err["code"]) == ("error", "wrong_phase")
    await seat.sock.send({"type": "snapshot", "game_id": seat.game_id})
    hand = set((await seat.sock.of_type("snapshot"))["view"]["hand"])
    foreign = next(c for c in ("AS", "KS", "QS", "JS", "TS", "9S", "AH", "KH", "QH", "JH")
                   if c not in hand)
    await seat.sock.send({"type": "play", "command_id": "not-mine", "game_id": seat.game_id,
                          "seat": seat.seat, "card": foreign})
    err = await seat.sock.until(lambda f: f.get("command_id") == "not-mine")
    assert (err["type"], err["code"]) == ("error", "card_not_in_hand")
    assert err["code"] in CODES
    await seat.sock.send({"type": "snapshot", "game_id": seat.game_id})
    snap = await seat.sock.of_type("snapshot")
    assert snap["view"]["seat"] == seat.seat and snap["version"] >= seat.version
    await seat.sock.close()
    await ada.aclose()
