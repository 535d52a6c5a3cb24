"""Losing the connection: resume with the missed events, the grace period, coming back."""

from __future__ import annotations

import asyncio
from typing import Any

from tests.e2e.conftest import Platform
from tests.e2e.players import Seat, started
from tests.services.lobby.harness import Player, Socket


def events_after(frames: list[dict[str, Any]], version: int) -> list[dict[str, Any]]:
    return [f for f in frames if f["type"] == "event" and f["version"] > version]


async def read_until_mid_trick(sock: Socket) -> int:
    """Read until the last event read is a card that leaves its trick unfinished."""
    while True:
        f = await sock.recv()
        if f["type"] == "event" and f["event"]["type"] == "CardPlayed":
            nxt = await sock.recv()
            if nxt["type"] == "event" and nxt["event"]["type"] == "CardPlayed":
                return int(nxt["version"])  # two cards of one trick: it is under way


async def test_a_socket_that_reconnects_mid_trick_gets_exactly_the_missed_events(
        platform: Platform) -> None:
    ada, actor, _ = await started(platform, "Ada", "classic")
    second = await ada.socket(platform.a.ws_url)  # the same player's other device
    await second.send({"type": "subscribe", "game_id": actor.game_id})
    await second.of_type("subscribed")

    async def play_until(done: Any) -> None:
        while not done():
            await actor.step()

    reader = asyncio.create_task(read_until_mid_trick(second))
    await play_until(reader.done)
    last = reader.result()
    await second.close()
    await play_until(lambda: actor.version >= last + 12)

    back = await ada.socket(platform.b.ws_url)  # back on the other gateway
    await back.send({"type": "subscribe", "game_id": actor.game_id, "since": last})
    done = await back.of_type("subscribed")
    assert done["resumed"] and done["seat"] == 0
    missed = events_after(back.frames, last)
    assert missed and not any(f["type"] == "snapshot" for f in back.frames)
    while actor.version < done["version"]:  # the actor's socket may still hold some
        actor.absorb(await actor.sock.recv())
    expected = [f for f in events_after(actor.sock.frames, last)
                if f["version"] <= done["version"]]
    assert [f["version"] for f in missed] == [f["version"] for f in expected]
    assert [f["event"] for f in missed] == [f["event"] for f in expected]

    # Further behind than the resume window: a fresh snapshot is shorter.
    await back.close()
    await play_until(lambda: actor.version >= last + 100 or actor.ended is not None)
    again = await ada.socket(platform.b.ws_url)
    await again.send({"type": "subscribe", "game_id": actor.game_id, "since": last})
    snap = await again.of_type("snapshot")
    done = await again.of_type("subscribed")
    assert not done["resumed"] and snap["version"] == done["version"] >= last + 100
    assert not events_after(again.frames[:-1], 0)
    for s in (again, actor.sock):
        await s.close()
    await ada.aclose()


async def test_a_dropped_player_keeps_the_seat_for_the_grace_period_then_a_bot_plays_it(
        platform: Platform) -> None:
    ada = await Player.guest(platform.a.url, "Ada")
    t = await ada.ok("POST", "/v1/tables", {"rules": "house", "private": True})
    t = await ada.ok("POST", f"/v1/tables/{t['table_id']}/start")
    watcher = await Player.guest(platform.b.url, "Watcher")
    watch = await watcher.socket(platform.b.ws_url)
    await watch.send({"type": "subscribe", "game_id": t["game_id"], "spectate": True,
                      "code": t["code"]})
    await watch.of_type("subscribed")
    seat = Seat(ada, await ada.socket(platform.a.ws_url), t["game_id"])
    await seat.subscribe()
    await seat.sock.close()  # the grace period of the test gateways is one second

    taken = await watch.until(lambda f: f["type"] == "event"
                              and f["event"]["type"] == "SeatTakenByBot", timeout=10)
    assert taken["event"]["seat"] == 0 and taken["event"]["reason"] == "left"
    back = Seat(ada, await ada.socket(platform.a.ws_url), t["game_id"])
    await back.subscribe()
    back_frame = await watch.until(lambda f: f["type"] == "event"
                                   and f["event"]["type"] == "SeatReclaimed", timeout=10)
    assert back_frame["event"]["seat"] == 0
    await back.sock.close()
    await watch.close()
    await asyncio.gather(ada.aclose(), watcher.aclose())


async def test_a_quick_return_keeps_the_seat(platform: Platform) -> None:
    ada, seat, _ = await started(platform, "Ada", "house", private=True)
    await seat.sock.close()
    back = Seat(ada, await ada.socket(platform.b.ws_url), seat.game_id)  # elsewhere, in time
    await back.subscribe()
    await asyncio.sleep(2.0)
    await back.sock.send({"type": "ping"})
    await back.sock.of_type("pong")
    assert not any(f["type"] == "event" and f["event"]["type"] == "SeatTakenByBot"
                   for f in back.sock.frames)
    await back.sock.close()
    await ada.aclose()


async def test_leaving_under_club_rules_forfeits_the_match(platform: Platform) -> None:
    ada, seat, _ = await started(platform, "Ada", "club")
    await seat.sock.send({"type": "leave", "command_id": "bye", "game_id": seat.game_id,
                          "seat": 0})
    ended = await seat.sock.until(lambda f: f["type"] == "event"
                                  and f["event"]["type"] == "GameEnded")
    assert ended["event"]["reason"] == "forfeit" and ended["event"]["forfeited_by"] == 0
    summary = await ada.ok("GET", f"/v1/games/{seat.game_id}")
    assert summary["state"] == "over" and summary["winner"] == 1
    await seat.sock.close()
    await ada.aclose()


async def test_leaving_over_http_mid_game_hands_the_seat_to_a_bot(platform: Platform) -> None:
    ada, seat, table_id = await started(platform, "Ada", "house")
    await ada.ok("POST", f"/v1/tables/{table_id}/leave")
    taken = await seat.sock.until(lambda f: f["type"] == "event"
                                  and f["event"]["type"] == "SeatTakenByBot")
    assert taken["event"]["seat"] == 0
    await seat.sock.close()
    await ada.aclose()


async def test_unsubscribing_from_ones_seat_starts_the_grace_period_too(
        platform: Platform) -> None:
    ada, seat, _ = await started(platform, "Ada", "house")
    watcher = await Player.guest(platform.b.url, "Watcher")
    watch = await watcher.socket(platform.b.ws_url)
    await watch.send({"type": "subscribe", "game_id": seat.game_id, "spectate": True})
    await watch.of_type("subscribed")
    await seat.sock.send({"type": "unsubscribe", "game_id": seat.game_id})
    taken = await watch.until(lambda f: f["type"] == "event"
                              and f["event"]["type"] == "SeatTakenByBot", timeout=10)
    assert taken["event"]["seat"] == 0
    for s in (seat.sock, watch):
        await s.close()
    await asyncio.gather(ada.aclose(), watcher.aclose())
