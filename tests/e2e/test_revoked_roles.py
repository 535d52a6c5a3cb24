"""A role's privilege ends when the role is revoked, not when the token expires.

An organizer watches their tournament's games live and an operator every delayed
game; once `spades organizer|operator revoke` took the role away, the same token gets
what anyone gets: a new socket watches delayed, `GET /v1/games/{id}` answers the
delayed game, and a socket that already watched live is turned delayed (a snapshot as
a delayed watcher sees it, `subscribed` again with `delayed: true`, then nothing
ahead of the delay). The players play in lockstep, so the game is where they are.
"""

from __future__ import annotations

import uuid
from typing import Any

from nats.aio.client import Client

from tests.e2e.conftest import Platform
from tests.e2e.players import Seat
from tests.e2e.replays import operator
from tests.e2e.test_tournament_run import copy
from tests.e2e.test_watching_delayed import _allowed, _match, _play, _watch
from tests.services.lobby.harness import Player, Socket
from tests.services.lobby.test_tournaments import body, organizer, role


async def _watching_live(who: Player, platform: Platform, game_id: str,
                         seats: list[Seat]) -> Socket:
    """``who`` watches live, by its role, while a trick is played."""
    async def live(seen: list[dict[str, Any]], now: int) -> None:
        assert seen and seen[-1]["version"] == now, (seen[-1:], now)

    sock, _ = await _watch(who, platform, game_id, delayed=False)
    await _play(seats, sock, live, stop_after=8)
    return sock


async def _turned_delayed(sock: Socket, seats: list[Seat]) -> None:
    """The open socket is told it now watches delayed, and is sent nothing ahead of the
    delay from then on, while the game goes on."""
    snap = await sock.until(lambda f: f["type"] in ("snapshot", "event"))
    assert snap["type"] == "snapshot", snap
    assert snap["version"] <= _allowed(seats[0].events, seats[0].version), snap
    subscribed = await sock.of_type("subscribed")
    assert subscribed["delayed"] is True, subscribed

    async def behind(seen: list[dict[str, Any]], now: int) -> None:
        allowed = _allowed(seats[0].events, now)
        assert [f["version"] for f in seen if f["version"] > allowed] == [], (allowed, now)

    await _play(seats, sock, behind, stop_after=12)


async def _sees_delayed(who: Player, platform: Platform, game_id: str,
                        seats: list[Seat]) -> None:
    """A new socket, and the game's summary, as anyone sees them: behind the delay."""
    allowed = _allowed(seats[0].events, seats[0].version)
    assert allowed < seats[0].version
    sock, first = await _watch(who, platform, game_id)  # asserts `delayed: true`
    assert first <= allowed
    await sock.close()
    status, summary = await who.call("GET", f"/v1/games/{game_id}")
    assert status == 200 and summary["version"] <= allowed, (summary, allowed)


async def test_a_revoked_organizer_watches_their_tournaments_game_as_anyone_does(
        platform: Platform, platform_env: dict[str, str], nc: Client, nats_prefix: str,
        database_url: str) -> None:
    service = copy(platform, platform_env, "revoked")
    try:
        org = await organizer(platform.a, database_url)
        tid = (await org.ok("POST", "/v1/tournaments", body()))["tournament_id"]
        game_id, seats = await _match(platform, nc, nats_prefix, uuid.uuid4().hex[:6],
                                      origin="tournament", origin_id=tid)
        sock = await _watching_live(org, platform, game_id, seats)
        status, summary = await org.call("GET", f"/v1/games/{game_id}")
        assert (status, summary["version"]) == (200, seats[0].version)

        done = role(database_url, "organizer", "revoke", org.name)
        assert done.returncode == 0, done.stderr
        await _sees_delayed(org, platform, game_id, seats)
        await _turned_delayed(sock, seats)
    finally:
        service.stop()
    for p in [org, *(s.player for s in seats)]:
        await p.aclose()


async def test_a_revoked_operators_open_socket_turns_delayed(
        platform: Platform, nc: Client, nats_prefix: str, database_url: str) -> None:
    op = await operator(platform, database_url, f"Op{uuid.uuid4().hex[:6]}")
    game_id, seats = await _match(platform, nc, nats_prefix, op.name[2:])
    sock = await _watching_live(op, platform, game_id, seats)

    done = role(database_url, "operator", "revoke", op.name)
    assert done.returncode == 0, done.stderr
    await _sees_delayed(op, platform, game_id, seats)
    await _turned_delayed(sock, seats)
    for p in [op, *(s.player for s in seats)]:
        await p.aclose()
