"""Input past the bounds of ``schemas/bounds.py`` is a typed 400 where it enters: a NUL
(or another control character) in text and an integer past 64 bits, in bodies, query
parameters and WebSocket frames. Each of these once reached Postgres or asyncpg and
came back as a 500 (or as a 400 naming an exception)."""

from __future__ import annotations

import re
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest

from tests.services.lobby.harness import Player, Service
from tests.services.lobby.test_tournaments import body, organizer, registered

HUGE = 10**30  # past 64 bits
NUL = "a\x00b"
EXCEPTION_NAME = re.compile(r"[A-Z][a-z]+(?:[A-Z][a-z]+)*(?:Error|Exception)")


def refused(status: int, answer: Any, where: str) -> None:
    assert status == 400, (where, status, answer)
    assert set(answer) == {"code", "message"}, (where, answer)
    assert answer["code"] == "bad_request", (where, answer)
    assert not EXCEPTION_NAME.search(answer["message"]), (where, answer)


@pytest.fixture
async def org(lobby: Service, tournaments: Service,
              database_url: str) -> AsyncIterator[Player]:
    who = await organizer(lobby, database_url)
    yield who
    await who.aclose()


async def test_nul_and_huge_integers_in_bodies_and_queries_are_a_typed_400(
        org: Player, lobby: Service) -> None:
    created = await org.ok("POST", "/v1/tournaments", body())
    tid = created["tournament_id"]
    partner = await registered(lobby.url)
    cases: list[tuple[str, str, Any]] = [
        ("POST", "/v1/tables/join", {"code": NUL}),
        ("POST", "/v1/tables/join", {"code": "\x00\x00\x00\x00"}),
        ("POST", "/v1/tables/watch", {"code": NUL + "cd"}),
        ("GET", "/v1/players?name=a%00b", None),
        ("GET", "/v1/players?name=Ada%0A", None),
        ("GET", "/v1/players/p-1%0A", None),
        ("GET", f"/v1/tournaments/{tid}/events?after=1%0A", None),
        ("POST", "/v1/auth/guest", {"name": "Ada\n"}),
        ("POST", f"/v1/tournaments/{tid}/teams", {"partner": "p-1\n", "name": "Aces"}),
        ("GET", f"/v1/players/{org.player_id}/ratings?before={HUGE}", None),
        ("GET", f"/v1/tournaments/{tid}/events?after={HUGE}", None),
        ("GET", f"/v1/admin/games/g-1/state?at={HUGE}", None),
        ("POST", "/v1/tournaments", body(name=NUL)),
        ("PATCH", f"/v1/tournaments/{tid}", body(name="tab\tname")),
        ("POST", f"/v1/tournaments/{tid}/teams", {"partner": partner.player_id, "name": NUL}),
        ("POST", f"/v1/tournaments/{tid}/bots", {"name": NUL}),
        ("POST", f"/v1/tournaments/{tid}/teams/t1/disqualify", {"why": NUL}),
    ]
    for field in ("registration_opens_at", "registration_closes_at", "starts_at"):
        cases += [("POST", "/v1/tournaments", body(**{field: HUGE})),
                  ("PATCH", f"/v1/tournaments/{tid}", body(**{field: HUGE})),
                  ("POST", "/v1/tournaments", body(**{field: -HUGE}))]
    for method, path, sent in cases:
        status, answer = await org.call(method, path, sent)
        refused(status, answer, f"{method} {path} {sent!r:.80}")
    # Nothing was changed by the refused PATCHes, and the lobby still serves.
    shown = await org.ok("GET", f"/v1/tournaments/{tid}")
    assert shown["settings"]["name"] == "Friday cup" and shown["version"] == 1


async def test_nul_and_huge_integers_in_frames_are_typed_errors(lobby: Service) -> None:
    p = await Player.guest(lobby.url, "Frames")
    t = await p.ok("POST", "/v1/tables", {"rules": "quick", "private": True})
    ws = await p.socket(lobby.ws_url)
    for frame in ({"type": "subscribe", "table_id": t["table_id"], "code": NUL},
                  {"type": "subscribe", "table_id": t["table_id"], "since": HUGE},
                  {"type": "ping", "nonce": NUL},
                  {"type": "chat", "game_id": "g-1", "text": NUL},
                  {"type": "bid", "game_id": "g-1", "seat": 0, "bid": 3,
                   "command_id": NUL}):
        await ws.send(frame)
        error = await ws.of_type("error")
        assert error["code"] == "bad_field", (frame, error)
        assert not EXCEPTION_NAME.search(error["message"]), error
    await ws.send({"type": "ping", "nonce": uuid.uuid4().hex})
    assert (await ws.of_type("pong"))["type"] == "pong"
    await ws.close()
    await p.aclose()
