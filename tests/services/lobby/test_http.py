"""The lobby's HTTP API against a real lobby process, Postgres and NATS."""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import AsyncIterator

import httpx
import jwt
import pytest

from services.platform import version
from tests.services.lobby.harness import SECRET, Player, Service


@pytest.fixture
async def host(lobby: Service) -> AsyncIterator[Player]:
    p = await Player.guest(lobby.url, "Host")
    yield p
    await p.aclose()


async def test_a_guest_gets_a_token_that_opens_the_api(lobby: Service) -> None:
    p = await Player.guest(lobby.url, "Ada")
    uuid.UUID(p.player_id)
    status, _ = await p.call("GET", "/v1/tables")
    assert status == 200
    await p.aclose()


async def test_a_players_name_is_read_by_id_and_the_legacy_registry_is_gone(
        host: Player, lobby: Service) -> None:
    page = await host.ok("GET", f"/v1/players/{host.player_id}")
    assert (page["player_id"], page["name"]) == (host.player_id, "Host")
    for unknown in (str(uuid.uuid4()), "not-a-uuid"):
        status, body = await host.call("GET", f"/v1/players/{unknown}")
        assert (status, body["code"]) == (404, "player_not_found")
    async with httpx.AsyncClient(base_url=lobby.url) as http:
        r = await http.get(f"/v1/players/{host.player_id}")
        assert (r.status_code, r.json()["code"]) == (401, "unauthenticated")
        r = await http.post("/api/v1/players", json={"name": "Nobody"})
        assert r.status_code in (404, 405)


async def test_calls_without_a_valid_token_are_refused(lobby: Service) -> None:
    async with httpx.AsyncClient(base_url=lobby.url) as http:
        r = await http.get("/v1/tables/t-none")
        assert (r.status_code, r.json()["code"]) == (401, "unauthenticated")
        forged = jwt.encode({"sub": "x", "iat": 0, "exp": int(time.time()) + 60},
                            "a-wrong-secret-that-is-long-enough-0123456789", algorithm="HS256")
        r = await http.get("/v1/tables/t-none", headers={"authorization": f"Bearer {forged}"})
        assert (r.status_code, r.json()["code"]) == (401, "bad_token")
        expired = jwt.encode({"sub": "x", "iat": 0, "exp": int(time.time()) - 5}, SECRET,
                             algorithm="HS256")
        r = await http.get("/v1/tables/t-none", headers={"authorization": f"Bearer {expired}"})
        assert (r.status_code, r.json()["code"]) == (401, "token_expired")
        unsigned = jwt.encode({"sub": "x", "iat": 0, "exp": int(time.time()) + 60}, None,
                              algorithm="none")
        r = await http.get("/v1/tables/t-none",
                           headers={"authorization": f"Bearer {unsigned}"})
        assert (r.status_code, r.json()["code"]) == (401, "bad_token")


async def test_the_list_of_open_tables_needs_no_token(host: Player, lobby: Service) -> None:
    t = await host.ok("POST", "/v1/tables", {"rules": "quick"})
    async with httpx.AsyncClient(base_url=lobby.url) as http:
        r = await http.get("/v1/tables")
    assert r.status_code == 200
    assert t["table_id"] in [x["table_id"] for x in r.json()["tables"]]


async def test_register_then_login_with_the_password_only(lobby: Service) -> None:
    name = f"reg{uuid.uuid4().hex[:8]}"
    async with httpx.AsyncClient(base_url=lobby.url) as http:
        r = await http.post("/v1/auth/register", json={"name": name, "password": "hunter2hunter2"})
        assert r.status_code == 201
        player_id = r.json()["player_id"]
        r = await http.post("/v1/auth/register", json={"name": name, "password": "another-one"})
        assert (r.status_code, r.json()["code"]) == (409, "name_taken")
        r = await http.post("/v1/auth/login", json={"name": name, "password": "hunter2hunter2"})
        assert r.status_code == 200 and r.json()["player_id"] == player_id
        r = await http.post("/v1/auth/login", json={"name": name, "password": "wrong-password"})
        assert (r.status_code, r.json()["code"]) == (401, "bad_credentials")
        r = await http.post("/v1/auth/register", json={"name": name + "x", "password": "short"})
        assert (r.status_code, r.json()["code"]) == (400, "bad_request")


async def test_a_public_table_is_listed_with_its_free_seats(host: Player) -> None:
    t = await host.ok("POST", "/v1/tables", {"rules": "classic"})
    assert t["code"] is None and t["preset"] == "classic" and t["free_seats"] == [1, 2, 3]
    listed = (await host.ok("GET", "/v1/tables"))["tables"]
    mine = next(x for x in listed if x["table_id"] == t["table_id"])
    assert mine["rules"]["target"] == 500 and mine["seats"][0]["player_id"] == host.player_id


async def test_a_public_table_keeps_its_preset(host: Player) -> None:
    status, err = await host.call("POST", "/v1/tables",
                                  {"rules": {"preset": "house", "target": 250}})
    assert (status, err["code"]) == (409, "public_rules_fixed")
    t = await host.ok("POST", "/v1/tables", {"rules": "house"})
    status, err = await host.call("PATCH", f"/v1/tables/{t['table_id']}/rules", {"target": 250})
    assert (status, err["code"]) == (409, "public_rules_fixed")


async def test_a_private_table_has_a_room_code_and_is_not_listed(host: Player,
                                                                 lobby: Service) -> None:
    t = await host.ok("POST", "/v1/tables", {"rules": "house", "private": True})
    assert len(t["code"]) == 6
    listed = (await host.ok("GET", "/v1/tables"))["tables"]
    assert t["table_id"] not in {x["table_id"] for x in listed}
    friend = await Player.guest(lobby.url, "Friend")
    seen = await friend.ok("GET", f"/v1/tables/{t['table_id']}")
    assert seen["code"] is None  # only those at the table see the code
    joined = await friend.ok("POST", "/v1/tables/join", {"code": t["code"].lower()})
    assert joined["seats"][1]["player_id"] == friend.player_id and joined["code"] == t["code"]
    await friend.aclose()


async def test_the_private_host_changes_rules_and_resets_them_in_one_step(host: Player) -> None:
    t = await host.ok("POST", "/v1/tables", {"rules": {"preset": "house", "target": 300},
                                             "private": True})
    assert t["rules"]["target"] == 300
    tid = t["table_id"]
    t = await host.ok("PATCH", f"/v1/tables/{tid}/rules", {"board": 0, "boston": "off"})
    assert (t["rules"]["board"], t["rules"]["boston"], t["rules"]["target"]) == (0, "off", 300)
    status, err = await host.call("PATCH", f"/v1/tables/{tid}/rules", {"deck": "tarot"})
    assert (status, err["code"]) == (400, "bad_rules")
    status, err = await host.call("PATCH", f"/v1/tables/{tid}/rules", {"no_such_rule": 1})
    assert (status, err["code"]) == (400, "bad_rules")
    t = await host.ok("POST", f"/v1/tables/{tid}/rules/reset")
    assert (t["rules"]["board"], t["rules"]["target"], t["rules"]["boston"]) == (4, 500, "bonus")


async def test_only_the_host_changes_a_table(host: Player, lobby: Service) -> None:
    t = await host.ok("POST", "/v1/tables", {"rules": "house", "private": True})
    other = await Player.guest(lobby.url, "Other")
    for method, path, body in [("PATCH", "/rules", {"target": 200}), ("POST", "/rules/reset", None),
                               ("POST", "/bots", {}), ("POST", "/start", None)]:
        status, err = await other.call(method, f"/v1/tables/{t['table_id']}{path}", body)
        assert (status, err["code"]) == (403, "not_host"), path
    await other.aclose()


async def test_seats_join_leave_and_bots(host: Player, lobby: Service) -> None:
    t = await host.ok("POST", "/v1/tables", {"rules": "classic"})
    tid = t["table_id"]
    b = await Player.guest(lobby.url, "Bo")
    c = await Player.guest(lobby.url, "Cy")
    t = await b.ok("POST", f"/v1/tables/{tid}/join", {"seat": 2})
    assert t["seats"][2]["player_id"] == b.player_id
    status, err = await c.call("POST", f"/v1/tables/{tid}/join", {"seat": 2})
    assert (status, err["code"]) == (409, "seat_taken")
    t = await b.ok("POST", f"/v1/tables/{tid}/join", {"seat": 3})  # moves: one seat per player
    assert t["seats"][2]["player_id"] is None and t["seats"][3]["player_id"] == b.player_id
    t = await host.ok("POST", f"/v1/tables/{tid}/bots", {"seat": 1, "level": "expert"})
    assert t["seats"][1]["bot"] == "expert" and t["free_seats"] == [2]
    t = await host.ok("POST", f"/v1/tables/{tid}/bots", {})
    assert t["free_seats"] == [] and t["seats"][2]["bot"] == "basic"
    status, err = await c.call("POST", f"/v1/tables/{tid}/join")
    assert (status, err["code"]) == (409, "table_full")
    status, err = await host.call("POST", f"/v1/tables/{tid}/bots", {"seat": 3})
    assert (status, err["code"]) == (409, "seat_taken")
    t = await host.ok("POST", f"/v1/tables/{tid}/bots", {"seat": 2, "remove": True})
    assert t["free_seats"] == [2]
    t = await b.ok("POST", f"/v1/tables/{tid}/leave")
    assert t["free_seats"] == [2, 3]
    status, err = await b.call("POST", f"/v1/tables/{tid}/leave")
    assert (status, err["code"]) == (409, "not_seated")
    await b.aclose()
    await c.aclose()


async def test_every_bot_level_players_can_choose_is_seated_and_shown(host: Player) -> None:
    """The levels as players see them, weakest first: each one sits and the table says
    which; a level that is none of them is a typed error that changes nothing."""
    t = await host.ok("POST", "/v1/tables", {"rules": "house"})
    tid = t["table_id"]
    for seat, level in enumerate(("beginner", "basic", "expert"), start=1):
        t = await host.ok("POST", f"/v1/tables/{tid}/bots", {"seat": seat, "level": level})
        assert t["seats"][seat]["bot"] == level
    status, err = await host.call("POST", f"/v1/tables/{tid}/bots", {"seat": 1, "level": "god"})
    assert status == 400 and "code" in err
    t = await host.ok("GET", f"/v1/tables/{tid}")
    assert [s["bot"] for s in t["seats"]] == [None, "beginner", "basic", "expert"]


async def test_bad_bodies_and_unknown_tables_are_typed_errors(host: Player) -> None:
    status, err = await host.call("POST", "/v1/tables", {"rules": "poker"})
    assert (status, err["code"]) == (400, "bad_rules")
    status, err = await host.call("POST", "/v1/tables", {"rules": "house", "private": "yes"})
    assert (status, err["code"]) == (400, "bad_request")
    status, err = await host.call("POST", f"/v1/tables/{uuid.uuid4()}/join")
    assert (status, err["code"]) == (404, "table_not_found")
    status, err = await host.call("POST", "/v1/tables/not-a-uuid/join")
    assert (status, err["code"]) == (404, "table_not_found")
    status, err = await host.call("POST", "/v1/tables/join", {"code": "ZZZZZZ"})
    assert (status, err["code"]) == (404, "table_not_found")
    status, err = await host.call("GET", f"/v1/games/{uuid.uuid4().hex}")
    assert (status, err["code"]) == (404, "game_not_found")
    status, err = await host.call("GET", "/v1/no-such-thing")
    assert (status, err["code"]) == (404, "not_found")
    status, err = await host.call("DELETE", "/v1/tables")
    assert (status, err["code"]) == (405, "method_not_allowed")


async def test_the_api_is_documented_at_schema(lobby: Service) -> None:
    async with httpx.AsyncClient(base_url=lobby.url) as http:
        paths = (await http.get("/schema/openapi.json")).json()["paths"]
    for path in ("/v1/auth/guest", "/v1/auth/register", "/v1/auth/login", "/v1/tables",
                 "/v1/tables/join", "/v1/tables/{table_id}/join", "/v1/tables/{table_id}/leave",
                 "/v1/tables/{table_id}/bots", "/v1/tables/{table_id}/rules",
                 "/v1/tables/{table_id}/rules/reset", "/v1/tables/{table_id}/start",
                 "/v1/games/{game_id}"):
        assert path in paths, path


HUGE = 1_000_000_000_000_000_000_000_000_000_000


@pytest.mark.parametrize("option", ["target", "max_hands", "nil_value", "bag_penalty",
                                    "blind_nil_value", "blind_nil_margin", "boston_bonus",
                                    "bag_limit", "floor"])
async def test_every_numeric_rule_option_is_bounded(host: Player, option: str) -> None:
    for value in (HUGE, -HUGE):
        status, err = await host.call("POST", "/v1/tables", {
            "rules": {"preset": "house", option: value}, "private": True})
        assert (status, err["code"]) == (400, "bad_rules"), (option, value, err)
    t = await host.ok("POST", "/v1/tables", {"rules": "house", "private": True})
    status, err = await host.call("PATCH", f"/v1/tables/{t['table_id']}/rules", {option: HUGE})
    assert (status, err["code"]) == (400, "bad_rules")


async def test_clock_options_are_bounded(host: Player) -> None:
    for clock in ("bid_ms", "play_ms", "single_card_ms", "bank_blocks", "bank_block_ms"):
        status, err = await host.call("POST", "/v1/tables", {
            "rules": {"preset": "house", "clocks": {clock: HUGE}}, "private": True})
        assert (status, err["code"]) == (400, "bad_rules"), clock


async def test_a_start_that_fails_leaves_the_table_open(host: Player) -> None:
    # No game worker runs beside this lobby: the start fails, and the table can try again.
    t = await host.ok("POST", "/v1/tables", {"rules": "quick", "private": True})
    for _ in range(2):
        status, err = await host.call("POST", f"/v1/tables/{t['table_id']}/start")
        assert (status, err["code"]) == (503, "game_unavailable")
        again = await host.ok("GET", f"/v1/tables/{t['table_id']}")
        assert again["state"] == "open" and again["game_id"] is None


async def test_the_document_names_the_bearer_scheme_and_the_real_error_shape(
        lobby: Service) -> None:
    async with httpx.AsyncClient(base_url=lobby.url) as http:
        doc = (await http.get("/schema/openapi.json")).json()
    assert doc["info"]["version"] == version()
    assert doc["components"]["securitySchemes"]["bearer"] == {
        "type": "http", "scheme": "bearer", "bearerFormat": "JWT",
        "description": "The token of POST /v1/auth/guest, /register or /login."}
    assert set(doc["components"]["schemas"]["ApiError"]["required"]) == {"code", "message"}
    operations = [(path, method, op) for path, item in doc["paths"].items()
                  if path.startswith("/v1/") for method, op in item.items()]
    assert len(operations) >= 18
    for path, method, op in operations:
        where = f"{method} {path}"
        open_to_all = path.startswith("/v1/auth/") or (path, method) == ("/v1/tables", "get")
        assert ("security" in op) is not open_to_all, where
        assert op.get("description"), where
        for status, answer in op["responses"].items():
            media = answer["content"]["application/json"]
            assert media.get("examples"), f"{where} {status}"
            if status.startswith("4") or status.startswith("5"):
                assert media["schema"] == {"$ref": "#/components/schemas/ApiError"}, where
                for example in media["examples"].values():
                    assert set(example["value"]) == {"code", "message"}, where
        if not open_to_all:
            assert "401" in op["responses"], where
    # The framework's own error body never appears: clients get {code, message} only.
    v1 = str({path: item for path, item in doc["paths"].items() if path.startswith("/v1/")})
    assert "status_code" not in v1 and "'extra'" not in v1


async def test_the_docs_viewer_and_its_assets_are_served_from_the_package(
        lobby: Service) -> None:
    async with httpx.AsyncClient(base_url=lobby.url) as http:
        page = (await http.get("/schema")).text
        assert "http://" not in page.replace("http://www.w3.org", "")
        assert "https://" not in page
        for asset in ("swagger-ui-bundle.js", "swagger-ui.css",
                      "swagger-ui-standalone-preset.js"):
            assert f"/schema-assets/{asset}" in page
            r = await http.get(f"/schema-assets/{asset}")
            assert r.status_code == 200 and len(r.content) > 10_000, asset
        for icon in ("/favicon.svg", "/favicon.ico"):
            r = await http.get(icon)
            assert (r.status_code, r.headers["content-type"]) == (200, "image/svg+xml")


async def test_a_private_table_is_joined_with_its_room_code_not_its_id(
        host: Player, lobby: Service) -> None:
    t = await host.ok("POST", "/v1/tables", {"rules": "house", "private": True})
    stranger = await Player.guest(lobby.url, "Stranger")
    status, err = await stranger.call("POST", f"/v1/tables/{t['table_id']}/join", {"seat": 1})
    assert (status, err["code"]) == (403, "room_code_required")
    seen = await host.ok("GET", f"/v1/tables/{t['table_id']}")
    assert seen["seats"][1]["player_id"] is None
    joined = await stranger.ok("POST", "/v1/tables/join", {"code": t["code"], "seat": 1})
    assert joined["seats"][1]["player_id"] == stranger.player_id
    # Seated once, the player may move seats by the table's id.
    moved = await stranger.ok("POST", f"/v1/tables/{t['table_id']}/join", {"seat": 2})
    assert moved["seats"][2]["player_id"] == stranger.player_id
    await stranger.aclose()


def _bad_tokens() -> dict[str, tuple[dict[str, str], str]]:
    """A missing, a forged, an expired and an unsigned (``alg: none``) token, each with
    the code it is refused with."""
    soon, gone = int(time.time()) + 60, int(time.time()) - 5
    forged = jwt.encode({"sub": "x", "iat": 0, "exp": soon},
                        "a-wrong-secret-that-is-long-enough-0123456789", algorithm="HS256")
    expired = jwt.encode({"sub": "x", "iat": 0, "exp": gone}, SECRET, algorithm="HS256")
    unsigned = jwt.encode({"sub": "x", "iat": 0, "exp": soon, "role": "operator"}, None,
                          algorithm="none")
    return {"missing": ({}, "unauthenticated"),
            "forged": ({"authorization": f"Bearer {forged}"}, "bad_token"),
            "expired": ({"authorization": f"Bearer {expired}"}, "token_expired"),
            "alg none": ({"authorization": f"Bearer {unsigned}"}, "bad_token")}


async def test_every_route_for_the_signed_in_refuses_a_bad_token(lobby: Service) -> None:
    """Every route the OpenAPI document says wants a bearer token (the live list of
    games among them) answers 401 to a missing, forged, expired or unsigned one."""
    async with httpx.AsyncClient(base_url=lobby.url) as http:
        doc = (await http.get("/schema/openapi.json")).json()
        secured = [(method.upper(), path) for path, item in doc["paths"].items()
                   for method, op in item.items() if op.get("security")]
        assert ("GET", "/v1/games/live") in secured
        wrong = []
        for method, path in secured:
            url = re.sub(r"\{(\w+)\}", lambda m: "1" if m[1] == "round_no"
                         else str(uuid.uuid4()), path)
            for kind, (headers, code) in _bad_tokens().items():
                r = await http.request(method, url, headers=headers, json={})
                if (r.status_code, r.json().get("code")) != (401, code):
                    wrong.append((method, path, kind, r.status_code, r.json().get("code")))
    assert wrong == [], wrong
