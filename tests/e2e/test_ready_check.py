"""The ready check of svc.lobby.open_match on the whole platform: a match that asks its
people first starts only when all of them confirm in time, once, whoever confirms last
and however they race; a decline or the deadline ends it unstarted with the seats that
did not confirm named, and every end is published on LOBBY_MATCHES."""

from __future__ import annotations

import asyncio
import dataclasses
import uuid
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import asyncpg
import msgspec
import pytest
from nats.aio.client import Client

from schemas.bus import EventEnvelope
from schemas.matches import MatchOutcome, MatchSeat, OpenMatch
from schemas.subjects import Names
from services.platform import bus
from tests.e2e.conftest import Platform
from tests.e2e.replays import registered
from tests.e2e.test_matches import ONE_HAND, count, open_match
from tests.metrics import total
from tests.services.lobby.harness import Player, Service, Socket, lobby_env, start
from tests.waiting import until


@dataclasses.dataclass
class Four:
    people: list[Player]
    socks: list[Socket]

    def seats(self) -> tuple[MatchSeat, ...]:
        return tuple(MatchSeat(player_id=p.player_id) for p in self.people)

    async def close(self) -> None:
        for s in self.socks:
            await s.close()
        await asyncio.gather(*(p.aclose() for p in self.people))


@pytest.fixture
async def four(platform: Platform) -> AsyncIterator[Four]:
    tag = uuid.uuid4().hex[:6]
    gateways = (platform.a, platform.b)
    people = [await registered(gateways[i % 2].url, f"ready{tag}{i}") for i in range(4)]
    socks = [await p.socket(gateways[i % 2].ws_url) for i, p in enumerate(people)]
    got = Four(people, socks)
    yield got
    await got.close()


def ask(match_id: str, seats: tuple[MatchSeat, ...], ready_seconds: int = 30) -> OpenMatch:
    return OpenMatch(match_id=match_id, seats=seats,  # type: ignore[arg-type]
                     rules=ONE_HAND, rated=True, origin="tournament", origin_id="cup-1",
                     ready_seconds=ready_seconds)


async def note_of(sock: Socket, kind: str) -> dict[str, object]:
    frame = await sock.until(lambda f: f["type"] == "note" and f["note"]["kind"] == kind)
    return frame["note"]


async def outcome(nc: Client, prefix: str, match_id: str) -> MatchOutcome:
    """The match's outcome as a consumer of LOBBY_MATCHES receives it."""
    names = Names(prefix)
    sub = await nc.jetstream().subscribe(names.lobby_match("tournament", match_id),
                                         stream=names.lobby_matches_stream, ordered_consumer=True)
    try:
        msg = await sub.next_msg(timeout=10)
    finally:
        await sub.unsubscribe()
    env = msgspec.msgpack.decode(msg.data, type=EventEnvelope)
    assert (env.stream, env.version, env.type) == (f"match-{match_id}", 1, "MatchOutcome")
    return msgspec.msgpack.decode(env.body, type=MatchOutcome)


async def _failures(platform: Platform, why: str) -> float:
    """Ready checks that ended a match unstarted, counted by every lobby copy."""
    return await total((g.url for g in platform.gateways), "spades_ready_check_failures_total",
                       why=why)


async def test_a_match_starts_once_when_its_last_person_confirms(
        platform: Platform, four: Four, nc: Client, nats_prefix: str,
        database_url: str) -> None:
    prefix, match_id = f"{nats_prefix}e2e", f"rc-{uuid.uuid4().hex[:8]}"
    opened = await open_match(nc, prefix, ask(match_id, four.seats()))
    assert (opened.state, opened.ready, opened.absent) == ("ready_check", (), ())
    for i, sock in enumerate(four.socks):  # each is asked on its own gateway
        offer = await note_of(sock, "match_offered")
        assert (offer["match_id"], offer["seat"], offer["expires_at"]) == (
            match_id, i, opened.ready_by)
    # No table and no game before everyone is ready.
    assert await count(database_url, "SELECT count(*) FROM lobby.game_tables"
                                     " WHERE game_id = $1", opened.game_id) == 0
    await four.socks[0].send({"type": "match_ready", "match_id": match_id})
    answer = (await four.socks[0].of_type("match"))["match"]
    assert (answer["state"], answer["ready"]) == ("ready_check", [0])
    again = await open_match(nc, prefix, ask(match_id, four.seats()))  # the record, re-read
    assert (again.state, again.ready, again.duplicate) == ("ready_check", (0,), True)
    # After a reload a client finds the offers it has not answered.
    offers = (await four.people[1].ok("GET", "/v1/me"))["offers"]
    assert [(o["match_id"], o["seat"]) for o in offers] == [(match_id, 1)]
    assert (await four.people[0].ok("GET", "/v1/me"))["offers"] == []  # answered already
    assert await four.people[1].ok("POST", f"/v1/matches/{match_id}/ready") == {
        **answer, "ready": [0, 1], "duplicate": False}
    # The last two race each other, one over the socket and one over HTTP, twice each.
    await asyncio.gather(
        four.socks[2].send({"type": "match_ready", "match_id": match_id}),
        four.people[3].call("POST", f"/v1/matches/{match_id}/ready"),
        four.socks[3].send({"type": "match_ready", "match_id": match_id}),
        four.people[2].call("POST", f"/v1/matches/{match_id}/ready"))
    for i, sock in enumerate(four.socks):
        started = await note_of(sock, "match_started")
        assert (started["game_id"], started["seat"], started["rated"]) == (
            opened.game_id, i, True)
    status = await four.people[0].ok("GET", f"/v1/matches/{match_id}")
    assert (status["state"], status["ready"]) == ("started", [0, 1, 2, 3])
    assert await count(database_url, "SELECT count(*) FROM lobby.game_tables"
                                     " WHERE game_id = $1", opened.game_id) == 1
    assert await count(database_url, "SELECT count(*) FROM game.events WHERE stream = $1"
                                     " AND type = 'GameStarted'", opened.game_id) == 1
    published = await outcome(nc, prefix, match_id)
    assert (published.state, published.game_id, published.origin_id) == (
        "started", opened.game_id, "cup-1")
    # A confirmation repeated after the start is answered the same, not refused.
    code, late = await four.people[2].call("POST", f"/v1/matches/{match_id}/ready")
    assert (code, late["state"], late["duplicate"]) == (200, "started", True)


async def test_a_decline_ends_the_match_unstarted_and_names_the_seat(
        platform: Platform, four: Four, nc: Client, nats_prefix: str,
        database_url: str) -> None:
    prefix, match_id = f"{nats_prefix}e2e", f"rd-{uuid.uuid4().hex[:8]}"
    declines = await _failures(platform, "declined")
    opened = await open_match(nc, prefix, ask(match_id, four.seats()))
    await four.people[0].ok("POST", f"/v1/matches/{match_id}/ready")
    await four.people[1].ok("POST", f"/v1/matches/{match_id}/ready")
    await four.socks[2].send({"type": "match_decline", "match_id": match_id})
    seen: dict[str, dict[str, object]] = {}
    while len(seen) < 2:  # the answer, and the note every seat gets, in either order
        frame = await four.socks[2].recv()
        if frame["type"] in ("match", "note"):
            seen[frame["type"]] = frame[frame["type"]]
    answer = seen["match"]
    assert (answer["state"], answer["declined"], answer["absent"]) == ("not_ready", [2], [2, 3])
    for sock in four.socks:
        cancelled = seen["note"] if sock is four.socks[2] else \
            await note_of(sock, "match_cancelled")
        assert (cancelled["match_id"], cancelled["absent"], cancelled["declined"]) == (
            match_id, [2, 3], [2])
    code, body = await four.people[3].call("POST", f"/v1/matches/{match_id}/ready")
    assert (code, body["code"]) == (409, "match_closed")
    assert await _failures(platform, "declined") == declines + 1
    again = await open_match(nc, prefix, ask(match_id, four.seats()))
    assert (again.state, again.absent, again.declined) == ("not_ready", (2, 3), (2,))
    published = await outcome(nc, prefix, match_id)
    assert (published.state, published.absent, published.declined) == ("not_ready", (2, 3),
                                                                       (2,))
    assert await count(database_url, "SELECT count(*) FROM game.events WHERE stream = $1",
                       opened.game_id) == 0
    assert await count(database_url, "SELECT count(*) FROM lobby.game_tables"
                                     " WHERE game_id = $1", opened.game_id) == 0


async def test_the_deadline_ends_the_match_with_the_absent_seats_named(
        platform: Platform, four: Four, nc: Client, nats_prefix: str,
        database_url: str) -> None:
    prefix, match_id = f"{nats_prefix}e2e", f"rx-{uuid.uuid4().hex[:8]}"
    lapses = await _failures(platform, "lapsed")
    opened = await open_match(nc, prefix, ask(match_id, four.seats(), ready_seconds=5))
    await four.people[0].ok("POST", f"/v1/matches/{match_id}/ready")
    await four.people[3].ok("POST", f"/v1/matches/{match_id}/ready")
    for sock in four.socks:  # within a poll of the deadline, on one lobby copy or the other
        cancelled = await note_of(sock, "match_cancelled")
        assert (cancelled["absent"], cancelled["declined"]) == ([1, 2], [])
    assert (await outcome(nc, prefix, match_id)).absent == (1, 2)
    assert await _failures(platform, "lapsed") == lapses + 1
    code, body = await four.people[1].call("POST", f"/v1/matches/{match_id}/ready")
    assert (code, body["code"]) == (409, "match_closed")
    assert await count(database_url, "SELECT count(*) FROM game.events WHERE stream = $1",
                       opened.game_id) == 0
    # An outcome a crash left unpublished is published by the sweep (once on the
    # stream: the message id makes the second publication a no-op there).
    conn = await asyncpg.connect(database_url)
    try:
        await conn.execute("UPDATE lobby.matches SET outcome_sent = false WHERE match_id = $1",
                           match_id)
    finally:
        await conn.close()

    async def sent() -> bool:
        return await count(database_url, "SELECT count(*) FROM lobby.matches WHERE"
                                         " match_id = $1 AND outcome_sent", match_id) == 1
    await until(sent, timeout=30)


async def test_only_the_seated_confirm_and_a_check_has_a_sensible_length(
        platform: Platform, four: Four, nc: Client, nats_prefix: str) -> None:
    prefix, match_id = f"{nats_prefix}e2e", f"rs-{uuid.uuid4().hex[:8]}"
    with pytest.raises(bus.RemoteError) as refused:
        await open_match(nc, prefix, ask(match_id, four.seats(), ready_seconds=2))
    assert refused.value.code == "bad_ready"
    await open_match(nc, prefix, ask(match_id, four.seats()))
    stranger = await Player.guest(platform.a.url, "Stranger")
    for method, path, status, code in (
            ("POST", f"/v1/matches/{match_id}/ready", 403, "not_in_match"),
            ("POST", f"/v1/matches/{match_id}/decline", 403, "not_in_match"),
            ("GET", f"/v1/matches/{match_id}", 403, "not_in_match"),
            ("POST", "/v1/matches/no-such-match/ready", 404, "match_not_found"),
            ("POST", "/v1/matches/bad.id/ready", 400, None)):
        got, body = await stranger.call(method, path)
        assert got == status and (code is None or body["code"] == code), (path, body)
    sock = await stranger.socket(platform.a.ws_url)
    await sock.send({"type": "match_ready", "match_id": match_id})
    assert (await sock.of_type("error"))["code"] == "not_in_match"
    await sock.close()
    await stranger.aclose()
    status = await four.people[0].ok("GET", f"/v1/matches/{match_id}")
    assert (status["state"], status["ready"]) == ("ready_check", [])  # nothing changed


async def test_confirmations_retried_while_the_last_one_lands_are_all_answered_alike(
        platform: Platform, four: Four, nc: Client, nats_prefix: str) -> None:
    """Seats that confirmed confirm again, over HTTP and the socket, many times, while the
    last seat's confirmation (itself sent many times) starts the game: none is refused."""
    prefix, match_id = f"{nats_prefix}e2e", f"rr-{uuid.uuid4().hex[:8]}"
    opened = await open_match(nc, prefix, ask(match_id, four.seats()))
    for p in four.people[:3]:
        await p.ok("POST", f"/v1/matches/{match_id}/ready")
    tries = 12
    frame = {"type": "match_ready", "match_id": match_id}

    async def over_http(p: Player) -> list[tuple[int, dict[str, object]]]:
        return list(await asyncio.gather(*(p.call("POST", f"/v1/matches/{match_id}/ready")
                                           for _ in range(tries))))

    async def over_socket(s: Socket) -> None:
        for _ in range(tries):
            await s.send(frame)

    # The last seat's own confirmation is retried too, while its first one lands.
    http = asyncio.gather(*(over_http(p) for p in four.people))  # running already
    await asyncio.gather(*(over_socket(s) for s in four.socks))
    answers = await http
    for seat, got in enumerate(answers):
        for code, body in got:
            assert code == 200, body
            assert body["state"] in ("ready_check", "starting", "started"), body
            assert seat in body["ready"], body  # type: ignore[operator]
    for seat, sock in enumerate(four.socks):
        for _ in range(tries):
            frame_got = await sock.until(lambda f: f["type"] in ("match", "error"))
            assert frame_got["type"] == "match", frame_got
            assert seat in frame_got["match"]["ready"], frame_got
    for sock in four.socks:  # the frames read above may hold it already
        while not any(f["type"] == "note" and f["note"]["kind"] == "match_started"
                      for f in sock.frames):
            await sock.recv()
        started = next(f["note"] for f in sock.frames if f["type"] == "note"
                       and f["note"]["kind"] == "match_started")
        assert started["game_id"] == opened.game_id
    status = await four.people[0].ok("GET", f"/v1/matches/{match_id}")
    assert status["state"] == "started"


async def test_a_match_says_starting_until_its_game_exists_and_a_sweep_starts_it(
        make_database: Callable[[], object], nats_url: str, nats_prefix: str, nc: Client,
        tmp_path: Path) -> None:
    """No game worker answers the last confirmation: the match is `starting`, not
    `started`, until the sweep created its game once a worker is there."""
    database_url = await make_database()  # type: ignore[misc]
    prefix = f"{nats_prefix}w{uuid.uuid4().hex[:6]}"
    env = lobby_env(database_url, nats_url, prefix, SPADES_MATCH_SWEEP_SECONDS="0.5")
    lobby = start("lobby", tmp_path / "lobby.log", **env)
    worker: Service | None = None
    people: list[Player] = []
    try:
        tag = uuid.uuid4().hex[:6]
        people = [await registered(lobby.url, f"slow{tag}{i}") for i in range(4)]
        match_id = f"rw-{uuid.uuid4().hex[:8]}"
        opened = await open_match(nc, prefix, ask(match_id, tuple(
            MatchSeat(player_id=p.player_id) for p in people)))
        for p in people[:3]:
            await p.ok("POST", f"/v1/matches/{match_id}/ready")
        code, body = await people[3].call("POST", f"/v1/matches/{match_id}/ready")
        assert (code, body["code"]) == (503, "game_unavailable")
        status = await people[0].ok("GET", f"/v1/matches/{match_id}")
        assert (status["state"], status["ready"]) == ("starting", [0, 1, 2, 3])
        code, again = await people[3].call("POST", f"/v1/matches/{match_id}/ready")
        assert (code, again["state"], again["duplicate"]) == (200, "starting", True)
        assert await count(database_url, "SELECT count(*) FROM game.games") == 0
        worker = start("game", tmp_path / "game.log", SPADES_BOT_THINK_MS="0", **env)

        async def started() -> bool:
            got = await people[0].ok("GET", f"/v1/matches/{match_id}")
            return bool(got["state"] == "started")
        await until(started, timeout=30)
        assert await count(database_url, "SELECT count(*) FROM game.games WHERE game_id = $1",
                           opened.game_id) == 1
    finally:
        await asyncio.gather(*(p.aclose() for p in people))
        for svc in (worker, lobby):
            if svc is not None:
                svc.stop()
