"""Malformed bodies to every public route of the OpenAPI document: never a 5xx, always
``{code, message}``. The routes come from the document, so a new route is covered."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import httpx
import pytest

from tests.services.lobby.harness import Player, Service

CORPUS: list[tuple[str, bytes]] = [
    ("wrong type: list", b"[]"),
    ("wrong type: string", b'"house"'),
    ("wrong type: number", b"12"),
    ("null", b"null"),
    ("nulls in fields", b'{"name": null, "rules": null, "seat": null, "code": null}'),
    ("wrong field types", b'{"name": 1, "rules": [], "seat": "x", "code": 7, "banter": 3}'),
    ("extra fields", b'{"name": "Zed", "password": "long enough", "zzz": 1, "seat": 1}'),
    ("invalid utf-8", b'{"name": "\xff\xfe\xfd"}'),
    ("invalid utf-8 alone", b"\xc3\x28"),
    ("deep nesting", b"[" * 100_000),
    ("deep nesting closed", b"[" * 5_000 + b"]" * 5_000),
    ("deep object", b'{"a":' * 50_000 + b"1" + b"}" * 50_000),
    ("huge string", b'{"name": "' + b"x" * 1_000_000 + b'"}'),
    ("huge number", b'{"seat": 1' + b"0" * 5_000 + b"}"),
    ("not json", b"name=Zed"),
    ("10 MB", b'{"name": "' + b"y" * 10_000_000 + b'"}'),
    ("empty", b""),
    ("nul bytes", b'{"name": "a\\u0000b", "code": "\\u0000"}'),
]


@pytest.fixture
async def caller(lobby: Service) -> AsyncIterator[Player]:
    p = await Player.guest(lobby.url, "Fuzz")
    yield p
    await p.aclose()


async def test_no_malformed_body_gets_a_5xx_on_any_public_route(
        caller: Player, lobby: Service, ratings: Service, tournaments: Service,
        game: Service) -> None:
    table = await caller.ok("POST", "/v1/tables", {"rules": "house", "private": True})
    paths = (await caller.http.get("/schema/openapi.json")).json()["paths"]
    routes = [(method.upper(), path) for path, item in paths.items() for method in item
              if method in ("get", "post", "put", "patch", "delete")]
    assert len(routes) >= 15
    failures = []
    for method, path in routes:
        url = re.sub(r"\{\w+\}", table["table_id"], path)
        for label, body in CORPUS:
            r = await caller.http.request(method, url, content=body,
                                          headers={"content-type": "application/json"})
            try:
                shape = set(r.json()) if r.status_code >= 400 else {"code", "message"}
            except ValueError:
                shape = set()
            if r.status_code >= 500 or shape != {"code", "message"}:
                failures.append((method, path, label, r.status_code, r.text[:120]))
    assert not failures, "\n".join(map(str, failures))
    async with httpx.AsyncClient(base_url=lobby.url) as http:
        assert (await http.get("/readyz")).status_code == 200
