"""Every answer of every route is a code the route declares in the OpenAPI document.

The routes are driven from the live ``/schema/openapi.json`` (so a new route is driven
too) by callers with no token, a forged one, a guest's, an organizer's and an
operator's, with good bodies, empty and malformed ones, hostile ids and queries past
their bounds; every route that reads a body gets one over the size limit, and the
organizer drives every route again with the same token once the role was revoked. The
test fails when an answer's code is not declared for its route (or with another status
than declared), on any 5xx, and on a message that names an exception class.
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
BODY_LIMIT = 10_000_000  # Litestar's request_max_body_size, which the lobby keeps
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
        ("POST", "/v1/admin/fairplay/{case_id}/decision"): [{"decision": "cleared"},
                                                            {"decision": "maybe"}],
        ("POST", "/v1/games/{game_id}/report"): [{"reason": "they never miss"},
                                                 {"reason": "x" * 600}],
    }


class Drive:
    """Requests to every route of the document, each answer checked against what its
    route declares: ``failures`` holds those that are not, ``seen`` what was met."""

    def __init__(self, doc: dict[str, Any], real: dict[str, str],
                 bodies: dict[tuple[str, str], list[Any]]) -> None:
        self.doc, self.real, self.bodies = doc, real, bodies
        self.routes = declared(doc)
        self.failures: list[tuple[Any, ...]] = []
        self.seen: set[tuple[str, str, str]] = set()

    async def send(self, method: str, template: str, url: str, http: httpx.AsyncClient,
                   sent: Any, raw: bytes | None = None) -> None:
        if raw is None:
            r = await http.request(method, url, json=sent)
        else:
            r = await http.request(method, url, content=raw,
                                   headers={"content-type": "application/json"})
        if r.status_code < 400:
            return
        try:
            answer = r.json()
            code = answer["code"]
        except (ValueError, KeyError, TypeError):
            self.failures.append((method, template, sent, r.status_code,
                                  "not {code, message}", r.text[:100]))
            return
        self.seen.add((method, template, code))
        allowed = self.routes[(method, template)]
        if (r.status_code >= 500 and code != "game_unavailable" and r.status_code != 503) \
                or allowed.get(code) != r.status_code \
                or EXCEPTION_NAME.search(answer.get("message", "")):
            self.failures.append((method, template, str(sent)[:60], r.status_code, code,
                                  answer.get("message", "")[:80]))

    async def every_route(self, callers: list[httpx.AsyncClient]) -> None:
        """Each route by each caller: real and hostile ids, queries past their bounds,
        good bodies and bad ones."""
        for (method, template), _ in self.routes.items():
            names = re.findall(r"\{(\w+)\}", template)
            urls = [template.format(**self.real)] if names else [template]
            for bad in HOSTILE_IDS if names else ():
                # A number in the path that is not one matches no route: only ids are hostile.
                urls.append(template.format(**{n: "0" if n == "round_no" else bad
                                               for n in names}))
            queries = QUERIES if method == "GET" else [""]
            sends = [*self.bodies.get((method, template), []), *BAD_BODIES] \
                if method != "GET" else [None]
            for http, url, query in itertools.product(callers, urls, queries):
                for sent in sends if url == urls[0] and query == "" else sends[-2:]:
                    await self.send(method, template, url + query, http, sent)

    def taking_bodies(self) -> list[tuple[str, str]]:
        """The write routes that read a body."""
        return [(method.upper(), path) for path, item in self.doc["paths"].items()
                for method, op in item.items()
                if isinstance(op, dict) and "requestBody" in op]

    async def over_the_limit(self, http: httpx.AsyncClient) -> None:
        """Every route that reads a body, sent one past the server's limit (Litestar's
        ``request_max_body_size``, 10 MB) as a well-formed JSON array."""
        huge = b"[" + b"0," * (BODY_LIMIT // 2 + 1) + b"0]"
        for method, template in self.taking_bodies():
            await self.send(method, template, template.format(**self.real), http,
                            "over the limit", raw=huge)


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
            "round_no": "1", "case_id": "c-none"}

    doc = (await org.http.get("/schema/openapi.json")).json()
    drive = Drive(doc, real, good_bodies(table["code"], partner.player_id, org))
    assert len(drive.routes) >= 40
    anonymous = httpx.AsyncClient(base_url=lobby.url)
    forged = httpx.AsyncClient(base_url=lobby.url, headers={"authorization": "Bearer a.b.c"})
    # Each caller drives the routes in order, the callers at once (each one's writes
    # still come one after another, as one client's would).
    await asyncio.gather(*(drive.every_route([c]) for c in (anonymous, forged, guest.http,
                                                            org.http, op.http)),
                         drive.over_the_limit(org.http))
    # The organizer's own token, once the role is revoked: every organizer's action.
    assert role(database_url, "organizer", "revoke", org.name).returncode == 0
    await drive.every_route([org.http])
    await anonymous.aclose()
    await forged.aclose()
    assert not drive.failures, "\n".join(sorted({str(f[:2] + f[3:5])
                                                 for f in drive.failures}))
    # The drive met the refusals it is there to meet, on more than a few routes.
    met = {code for _, _, code in drive.seen}
    assert {"bad_request", "unauthenticated", "bad_token", "not_host", "table_not_found",
            "organizers_only", "operators_only", "no_tournament"} <= met, met
    assert all(code in REGISTRY for code in met)
    too_large = {(m, t) for m, t, code in drive.seen if code == "body_too_large"}
    assert too_large == set(drive.taking_bodies()) and len(too_large) >= 19, too_large
    revoked = {t for _, t, code in drive.seen if code == "organizers_only"}
    assert len(revoked) >= 9, revoked  # creating, and each action on one's tournament


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
