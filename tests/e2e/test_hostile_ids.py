"""Ids that reach NATS subjects or SQL, at 10k characters and with control characters.

Every route with an id in its path (from the OpenAPI document, so a new route is
covered) and every id in a query answers a typed 4xx, and the gateway keeps its
NATS connection: the next request, ``/readyz`` and a new table still work.
"""

from __future__ import annotations

import re
import uuid
from urllib.parse import quote

import httpx
import pytest

from tests.e2e.conftest import Platform
from tests.e2e.replays import operator
from tests.services.lobby.harness import Player

HOSTILE = ["x" * 10_000, "ab\x00cd", "a b", "a.b.>", "a\r\nPUB x 1", "*"]


@pytest.fixture
async def op(platform: Platform, database_url: str) -> Player:
    return await operator(platform, database_url, f"Ivy {uuid.uuid4().hex[:8]}")


async def test_hostile_path_ids_are_typed_4xx_and_the_bus_stays_up(
        platform: Platform, op: Player) -> None:
    doc = (await op.http.get("/schema/openapi.json")).json()
    routes = [(method.upper(), path) for path, item in doc["paths"].items()
              for method in item if re.search(r"\{\w+\}", path)]
    assert routes  # the document lists the id routes
    for method, path in routes:
        for bad in HOSTILE:
            url = re.sub(r"\{\w+\}", quote(bad, safe=""), path)
            r = await op.http.request(method, url, json={})
            assert 400 <= r.status_code < 500, (method, path, bad[:20], r.status_code, r.text)
            body = r.json()
            assert set(body) == {"code", "message"}, body
    await _still_serving(platform, op)


async def test_hostile_query_ids_are_typed_4xx(platform: Platform, op: Player) -> None:
    for query in ({"player": "\x00"}, {"player": "x" * 10_000}, {"table": "x" * 10_000},
                  {"table": "\x00"}, {"started_after": "100000000000000000000"},
                  {"started_before": "-100000000000000000000"}):
        r = await op.http.get("/v1/admin/games", params=query)
        assert 400 <= r.status_code < 500, (query, r.status_code, r.text)
        assert set(r.json()) == {"code", "message"}
    await _still_serving(platform, op)


async def _still_serving(platform: Platform, op: Player) -> None:
    async with httpx.AsyncClient(base_url=platform.a.url) as http:
        assert (await http.get("/healthz")).status_code == 200
        assert (await http.get("/readyz")).status_code == 200
    t = await op.ok("POST", "/v1/tables", {"rules": "quick", "seat": None})
    t = await op.ok("POST", f"/v1/tables/{t['table_id']}/start")
    assert t["state"] == "playing"
    assert (await op.ok("GET", f"/v1/games/{t['game_id']}"))["game_id"] == t["game_id"]

