"""Names cannot be impersonated: one registered name per normalised form (NFKC and
case folded) and per look-alike (the Unicode confusables table), guests cannot take
a registered name or a look-alike of it, and guests are shown as guests."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import httpx
import pytest

from services.lobby.accounts import names
from tests.services.lobby.harness import Player, Service

PASSWORD = "a good long password"
CYRILLIC_A = "\u0410"  # looks like A
FULLWIDTH = str.maketrans({c: chr(ord(c) + 0xFEE0) for c in "abcdefABCDEF0123456789"})


@pytest.fixture
async def http(lobby: Service) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=lobby.url, timeout=10) as client:
        yield client


async def test_look_alikes_of_a_registered_name_are_taken(http: httpx.AsyncClient) -> None:
    tail = uuid.uuid4().hex[:8]
    name = f"Ada {tail}"
    r = await http.post("/v1/auth/register", json={"name": name, "password": PASSWORD})
    assert r.status_code == 201
    for other in (f"ADA {tail}", f"{CYRILLIC_A}da {tail}", f"Ada {tail}".translate(FULLWIDTH),
                  f"Ada  {tail}", f"\u0391da {tail}"):  # Greek capital alpha
        r = await http.post("/v1/auth/register", json={"name": other, "password": PASSWORD})
        assert (r.status_code, r.json()["code"]) == (409, "name_taken"), other
        r = await http.post("/v1/auth/guest", json={"name": other})
        assert (r.status_code, r.json()["code"]) == (409, "name_taken"), other
    r = await http.post("/v1/auth/login",
                        json={"name": f"ada {tail}".upper(), "password": PASSWORD})
    assert r.status_code == 200 and r.json()["name"] == name


async def test_guests_are_shown_as_guests(lobby: Service, http: httpx.AsyncClient) -> None:
    guest = await Player.guest(lobby.url, "Wanderer")
    r = await http.post("/v1/auth/guest", json={"name": "Wanderer"})
    assert r.status_code == 201 and r.json()["guest"] is True  # two guests, both marked
    t = await guest.ok("POST", "/v1/tables", {"rules": "house"})
    assert t["seats"][0]["guest"] is True and t["seats"][1]["guest"] is False
    name = f"Reg {uuid.uuid4().hex[:8]}"
    r = await http.post("/v1/auth/register", json={"name": name, "password": PASSWORD})
    assert r.json()["guest"] is False
    await guest.aclose()


def test_the_skeleton_folds_case_width_and_look_alikes() -> None:
    ada = names.skeleton("Ada")
    assert ada == names.skeleton("aDA".translate(FULLWIDTH)) == names.skeleton("\u0410da")
    assert names.skeleton("Ada  Lovelace ") == names.skeleton("ada lovelace")
    assert names.skeleton("Ada") != names.skeleton("Ida")


async def test_a_name_too_short_to_tell_apart_is_refused_by_its_own_code(
        http: httpx.AsyncClient) -> None:
    """One letter (or one letter among spaces and dots) is an initial, not a name: a guest
    and a new account alike get 400 ``name_too_short``; two letters are a name."""
    for name in ("J", " J ", "J.", "\uff2a"):  # the last: a full-width J
        for path, body in (("/v1/auth/guest", {"name": name}),
                           ("/v1/auth/register", {"name": name, "password": PASSWORD})):
            r = await http.post(path, json=body)
            assert (r.status_code, r.json()["code"]) == (400, "name_too_short"), (path, name)
    r = await http.post("/v1/auth/guest", json={"name": "Jo"})
    assert r.status_code == 201 and r.json()["name"] == "Jo"
