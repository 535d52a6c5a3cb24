"""Every answer of every route is a code the route declares in the OpenAPI document.

The routes are driven from the live ``/schema/openapi.json`` (so a new route is
driven too) by callers with no token, a forged one, a guest's, an organizer's and an
operator's, with good bodies, empty and malformed ones, hostile ids and queries past
their bounds. The test fails when an answer's code is not declared for its route (or
with another status than declared), on any 5xx, and on a message that names an
exception class.
"""

from __future__ import annotations

import asyncio
import itertools
import re
import uuid
from typing import Any

import httpx

from schemas.errors import REGISTRY
from schemas.ws import frame_errors
from services.lobby.http.apidocs import declared
from tests.services.lobby.harness import Player, Service
from tests.services.lobby.test_bounds import EXCEPTION_NAME, HUGE
from tests.services.lobby.test_tournaments import PASSWORD, body, organizer, registered, role

BAD_BODIES: list[Any] = [None, {}, [], "x", {"name": 1, "seat": "x", "code": 7, "rules": []},
                         {"name": "a\u0000b", "code": "\u0000" * 6, "why": "\u0000"}]
QUERIES = ["", "?limit=0&offset=-1&round_no=0",
           f"?name=a%00b&before={HUGE}&after={HUGE}&at={HUGE}&since=-1",
           "?code=%00&around=..&status=zzz&outcome=zzz&seat=9&player=%00&table=x%20y"]
HOSTILE_IDS = ["x" * 100, "a%00b", "a.b.%3E", "none-such", "g-1%0A", str(uuid.uuid4())]


def good_bodies(code: str, partner: str, org: Player) -> dict[tuple[str, str], list[Any]]:
    """A body a route takes, and another that its state or values refuse."""
    t = "/v1/tournaments/{tournament_id}"
    return {
        ("POST", "/v1/auth/guest"): [{"name": "Drive"}, {"name": "!!"}],
        ("POST", "/v1/auth/register"): [{"name": f"d{uuid.uuid4().hex[:8]}",
                                         "password": PASSWORD}, {"name": org.name,
                                                                 "password": PASSWORD}],
        ("POST", "/v1/auth/login"): [{"name": org.name, "password": PASSWORD},
                                     {"name": org.name, "password": "wrong password"}],
        ("POST", "/v1/tables"): [{"rules": "quick", "private": True},
                                 {"rules": {"preset": "quick", "target": 1}},
                                 {"rules": "no-such-preset"}],
        ("POST", "/v1/tables/join"): [{"code": code}, {"code": "ZZZZZZ"}],
        ("POST", "/v1/tables/watch"): [{"code": code}, {"code": "ZZZZZZ"}],
        ("POST", "/v1/tables/{table_id}/join"): [{"seat": 2}, {"seat": 0}],
        ("POST", "/v1/tables/{table_id}/bots"): [{"level": "basic", "seat": 1},
                                                 {"level": "basic", "seat": 0}],
        ("PATCH", "/v1/tables/{table_id}/rules"): [{"target": 300}, {"preset": "house"},
                                                   {"target": -5}],
        ("PATCH", "/v1/tables/{table_id}"): [{"banter": False}],
        ("POST", "/v1/tournaments"): [body(), body(min_teams=9, max_teams=8)],
        ("PATCH", t): [body(name="Renamed"), body(rules="no-such-preset")],
        ("POST", t + "/teams"): [{"partner": partner, "name": "Aces"},
                                 {"partner": org.player_id, "name": "Self"}],
        ("POST", t + "/bots"): [{"name": "Robots"}],
        ("POST", t + "/seeds"): [{"order": []}, {"order": ["x", "x"]}],
        ("POST", t + "/rounds/{round_no}/pairings"): [{"pairs": []}],
        ("POST", t + "/waive-ban"): [{"player": partner}],
        ("POST", t + "/matches/{match_id}/override"): [{"outcome": "home", "why": "typo"}],
        ("POST", t + "/teams/{team_id}/disqualify"): [{"why": "no show"}],
    }


async def test_every_answer_is_a_code_its_route_declares(
        lobby: Service, ratings: Service, tournaments: Service, database_url: str) -> None:
    org = await organizer(lobby, database_url)
    op = await registered(lobby.url, "op")
    assert role(database_url, "operator", "grant", op.name).returncode == 0
    r = await op.http.post("/v1/auth/login", json={"name": op.name, "password": PASSWORD})
    op.http.headers["authorization"] = f"Bearer {r.json()['token']}"
    guest = await Player.guest(lobby.url, "Stranger")
    partner = await registered(lobby.url)
    table = await org.ok("POST", "/v1/tables", {"rules": "quick", "private": True})
    tid = (await org.ok("POST", "/v1/tournaments", body()))["tournament_id"]
    team = await org.ok("POST", f"/v1/tournaments/{tid}/teams",
                        {"partner": partner.player_id, "name": "Pair"})
    real = {"table_id": table["table_id"], "tournament_id": tid, "team_id": team["team_id"],
            "player_id": org.player_id, "game_id": "g-none", "match_id": "m-none",
            "round_no": "1"}

    doc = (await org.http.get("/schema/openapi.json")).json()
    routes = declared(doc)
    assert len(routes) >= 40
    bodies = good_bodies(table["code"], partner.player_id, org)
    anonymous = httpx.AsyncClient(base_url=lobby.url)
    forged = httpx.AsyncClient(base_url=lobby.url, headers={"authorization": "Bearer a.b.c"})
    callers = [anonymous, forged, guest.http, org.http, op.http]
    failures: list[tuple[Any, ...]] = []
    seen: set[tuple[str, str, str]] = set()

    async def drive(method: str, template: str, url: str, http: httpx.AsyncClient,
                    sent: Any) -> None:
        r = await http.request(method, url, json=sent)
        if r.status_code < 400:
            return
        try:
            answer = r.json()
            code = answer["code"]
        except (ValueError, KeyError, TypeError):
            failures.append((method, template, sent, r.status_code, "not {code, message}",
                             r.text[:100]))
            return
        seen.add((method, template, code))
        allowed = routes[(method, template)]
        if (r.status_code >= 500 and code != "game_unavailable" and r.status_code != 503) \
                or allowed.get(code) != r.status_code \
                or EXCEPTION_NAME.search(answer.get("message", "")):
            failures.append((method, template, str(sent)[:60], r.status_code, code,
                             answer.get("message", "")[:80]))

    for (method, template), _ in routes.items():
        names = re.findall(r"\{(\w+)\}", template)
        urls = [template.format(**real)] if names else [template]
        for bad in HOSTILE_IDS if names else ():
            # A number in the path that is not one matches no route: only ids are hostile.
            urls.append(template.format(**{n: "0" if n == "round_no" else bad
                                           for n in names}))
        queries = QUERIES if method == "GET" else [""]
        sends = [*bodies.get((method, template), []), *BAD_BODIES] if method != "GET" else [None]
        for http, url, query in itertools.product(callers, urls, queries):
            for sent in sends if url == urls[0] and query == "" else sends[-2:]:
                await drive(method, template, url + query, http, sent)
    await anonymous.aclose()
    await forged.aclose()
    assert not failures, "\n".join(sorted({str(f[:2] + f[3:5]) for f in failures}))
    # The drive met the refusals it is there to meet, on more than a few routes.
    met = {code for _, _, code in seen}
    assert {"bad_request", "unauthenticated", "bad_token", "not_host", "table_not_found",
            "organizers_only", "operators_only", "no_tournament"} <= met, met
    assert all(code in REGISTRY for code in met)


async def test_every_route_declares_only_registered_codes_with_their_status(
        lobby: Service) -> None:
    async with httpx.AsyncClient(base_url=lobby.url) as http:
        doc = (await http.get("/schema/openapi.json")).json()
    for route, codes in declared(doc).items():
        for code, status in codes.items():
            assert REGISTRY[code].status == status, (route, code, status)



def frames(table_id: str, game_id: str) -> list[dict[str, Any]]:
    """Each client frame type with ids that exist, that do not, and bad values."""
    cmd = {"game_id": game_id, "seat": 0}
    out: list[dict[str, Any]] = [
        {"type": "subscribe", "table_id": table_id}, {"type": "subscribe", "game_id": game_id},
        {"type": "subscribe"}, {"type": "subscribe", "table_id": "t-none", "spectate": True,
                                "code": "ZZZZ"},
        {"type": "subscribe", "game_id": game_id, "spectate": True, "code": "\u0000"},
        {"type": "subscribe", "game_id": "g-1\n"}, {"type": "subscribe", "table_id": "t-1\n"},
        {"type": "unsubscribe", "game_id": game_id}, {"type": "snapshot", "game_id": game_id},
        {"type": "watch_tables"}, {"type": "watch_tables", "on": False},
        {"type": "watch_tournament", "tournament_id": str(uuid.uuid4())},
        {"type": "watch_tournament", "tournament_id": "x"},
        {"type": "watch_tournament", "tournament_id": "x", "on": False},
        {"type": "ping", "nonce": "n"}, {"type": "ping", "nonce": 5},
        {"type": "bid", "bid": 3, **cmd}, {"type": "bid", "bid": 99, **cmd},
        {"type": "blind_nil", **cmd}, {"type": "look", **cmd}, {"type": "play", "card": "AS",
                                                                 **cmd},
        {"type": "premove", "card": "ZZ", **cmd}, {"type": "cancel_premove", **cmd},
        {"type": "pass", "cards": ["AS", "KS"], **cmd}, {"type": "leave", **cmd},
        {"type": "chat", "game_id": game_id, "text": "hello"},
        {"type": "chat", "game_id": game_id, "text": "x" * 5000},
        {"type": "mute_bots", "game_id": game_id},
        {"type": "match_ready", "match_id": "m-none"},
        {"type": "match_decline", "match_id": "m-none"},
        {"type": "queue_join"}, {"type": "queue_join", "partner": "p-none"},
        {"type": "queue_leave"}, {"type": "queue_accept", "match_id": "m-none"},
        {"type": "no_such_frame"}, {"no_type": 1},
    ]
    for frame in out:
        if "seat" in frame:
            frame["command_id"] = uuid.uuid4().hex[:8]
    return out


async def test_every_error_frame_is_a_code_its_frame_declares(lobby: Service) -> None:
    failures = []
    seen: set[str] = set()

    async def drive(who: Player) -> None:
        table = await who.ok("POST", "/v1/tables", {"rules": "quick", "private": True})
        sock = await who.socket(lobby.ws_url)
        for frame in frames(table["table_id"], "g-none"):
            nonce = uuid.uuid4().hex
            await sock.send(frame)
            await sock.send({"type": "ping", "nonce": nonce})
            while (got := await sock.recv()) != {**got, "type": "pong", "nonce": nonce}:
                if got["type"] == "error":
                    seen.add(got["code"])
                    declared_codes = frame_errors(str(frame.get("type", "")))
                    if got["code"] not in declared_codes or EXCEPTION_NAME.search(
                            got["message"]):
                        failures.append((frame.get("type"), got["code"], got["message"][:60]))
            await asyncio.sleep(0.25)  # under the fixture's 10 frames a second
        await sock.close()
        await who.aclose()

    # The limit is a socket's: the guest's and the registered player's sockets side by side.
    await asyncio.gather(drive(await Player.guest(lobby.url, "Sock")),
                         drive(await registered(lobby.url, "sock")))
    assert not failures, "\n".join(map(str, failures))
    assert {"unknown_type", "bad_field", "not_in_game", "table_not_found", "registered_only",
            "match_not_found", "not_queued"} <= seen, seen
