"""Scripted players for end-to-end games: they act on what their frames say, at once.

``play_typed`` plays through the typed client (``spades_client``); ``Seat`` keeps every
raw frame, for the tests that look at the wire itself (leaks, duplicates)."""

from __future__ import annotations

import time
from typing import Any

from spades_client import GameConnection, first_legal
from tests.services.lobby.harness import Player, Socket


class Seat:
    """A person at a seat, playing the first legal move whenever it is their turn."""

    def __init__(self, player: Player, sock: Socket, game_id: str) -> None:
        self.player, self.sock, self.game_id = player, sock, game_id
        self.seat: int | None = None
        self.version = 0
        self.view: dict[str, Any] | None = None
        self.turn: dict[str, Any] | None = None
        self.ended: dict[str, Any] | None = None
        self.events: list[dict[str, Any]] = []
        self.pending: str | None = None  # command id awaiting its answer
        self.sent = 0

    async def subscribe(self, since: int | None = None) -> dict[str, Any]:
        frame: dict[str, Any] = {"type": "subscribe", "game_id": self.game_id}
        if since is not None:
            frame["since"] = since
        await self.sock.send(frame)
        while True:
            f = await self.sock.recv(10)
            self.absorb(f)
            if f["type"] == "subscribed":
                self.seat = f["seat"]
                return f
            if f["type"] == "error":
                raise AssertionError(f)

    def absorb(self, f: dict[str, Any]) -> None:
        if f["type"] == "snapshot":
            self.view, self.version = f["view"], f["version"]
            v = f["view"]
            self.turn = {k: v[k] for k in ("waiting", "deadlines", "bank", "legal_cards",
                                           "legal_bids", "blind_nil_offered", "pass_count")}
            if v["phase"] == "over":
                self.ended = {"winner": v["winner"], "scores": v["scores"]}
        elif f["type"] == "event":
            assert f["version"] > self.version, (f["version"], self.version)
            self.version = f["version"]
            self.turn = f["turn"]
            self.events.append(f)
            if f["event"]["type"] == "GameEnded":
                self.ended = f["event"]
        elif f["type"] in ("ack", "error") and f.get("command_id") == self.pending:
            self.pending = None

    def next_move(self) -> dict[str, Any] | None:
        t, seat = self.turn, self.seat
        if t is None or seat is None or seat not in t["waiting"] or self.pending:
            return None
        if t["pass_count"]:
            return None  # blind nil is never bid by these players, so no exchange
        if t["legal_bids"]:
            return {"type": "bid", "bid": t["legal_bids"][min(3, len(t["legal_bids"]) - 1)]}
        if t["legal_cards"]:
            return {"type": "play", "card": t["legal_cards"][0]}
        return None

    async def act(self) -> None:
        move = self.next_move()
        if move is None:
            return
        self.sent += 1
        self.pending = f"{self.player.name}-{self.sent}"
        await self.sock.send({**move, "command_id": self.pending, "game_id": self.game_id,
                              "seat": self.seat})

    async def step(self, timeout: float = 10.0) -> None:
        await self.act()
        self.absorb(await self.sock.recv(timeout))


async def play_until_over(seats: list[Seat], limit_seconds: float = 90.0) -> None:
    """Round-robin the people's sockets until each has seen the game end."""
    import asyncio

    deadline = time.monotonic() + limit_seconds

    async def run(s: Seat) -> None:
        while s.ended is None:
            assert time.monotonic() < deadline, "the game did not end in time"
            await s.step()

    await asyncio.gather(*(run(s) for s in seats))


async def play_typed(game: GameConnection, drop_after: int | None = None,
                   limit_seconds: float = 120) -> None:
    """Answer every turn with the first legal move until the game ends; after
    ``drop_after`` events, cut the socket once to make the client resume."""
    deadline = time.monotonic() + limit_seconds
    while game.ended is None:
        assert time.monotonic() < deadline, "the game did not end in time"
        if drop_after is not None and len(game.events) >= drop_after:
            drop_after = None
            assert game.conn is not None
            await game.conn.close()
        if game.my_turn():
            move = first_legal(game.turn)
            if move is not None:
                await game.send(move)
        await game.next()


async def started(platform: Any, name: str, rules: str = "classic",
                  private: bool = False) -> tuple[Player, Seat, str]:
    """A table of ``name`` and three bots, started, with ``name``'s socket following it
    from gateway a; the table's id last."""
    p = await Player.guest(platform.a.url, name)
    t = await p.ok("POST", "/v1/tables", {"rules": rules, "private": private})
    t = await p.ok("POST", f"/v1/tables/{t['table_id']}/start")
    seat = Seat(p, await p.socket(platform.a.ws_url), t["game_id"])
    await seat.subscribe()
    return p, seat, t["table_id"]


async def until_my_turn(seat: Seat, kind: str) -> None:
    """Let the game run (playing for the seat meanwhile) until it must ``kind``."""
    while True:
        t = seat.turn
        if t and seat.seat in t["waiting"] and t[kind] and not seat.pending:
            return
        await seat.step()


async def two_and_bots(platform: Any, names: tuple[str, str], rules: Any,
                       level: str = "basic") -> tuple[Player, Player, dict[str, Any], list[Seat]]:
    """Two people (gateway a's at seat 0 hosting, gateway b's at seat 1) and two bots at a
    private table, started, each person's socket following as their seat."""
    a = await Player.guest(platform.a.url, names[0])
    b = await Player.guest(platform.b.url, names[1])
    t = await a.ok("POST", "/v1/tables", {"rules": rules, "private": True})
    await b.ok("POST", "/v1/tables/join", {"code": t["code"], "seat": 1})
    await a.ok("POST", f"/v1/tables/{t['table_id']}/bots", {"level": level})
    t = await a.ok("POST", f"/v1/tables/{t['table_id']}/start")
    seats = [Seat(a, await a.socket(platform.a.ws_url), t["game_id"]),
             Seat(b, await b.socket(platform.b.ws_url), t["game_id"])]
    for s in seats:
        await s.subscribe()
    return a, b, t, seats
