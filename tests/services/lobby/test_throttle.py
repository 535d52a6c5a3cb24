"""Login throttling and the sign-up limit, per account and per client address; wrong
room codes per player.

Its own lobby with small limits; the address is the one a trusted proxy names in
``X-Forwarded-For`` (uvicorn trusts the local host's), so one test client can
stand for several addresses.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.services.lobby.harness import Service, lobby_env, start

PASSWORD = "the right password"


@pytest.fixture(scope="module")
def strict(tmp_path_factory: pytest.TempPathFactory, database_url: str, nats_url: str,
           lobby_prefix: str) -> Iterator[Service]:
    log: Path = tmp_path_factory.mktemp("throttle") / "lobby-strict.log"
    svc = start("lobby", log, **lobby_env(
        database_url, nats_url, lobby_prefix, SPADES_LOGIN_FAILURES_PER_ACCOUNT="3/minute",
        SPADES_LOGIN_FAILURES_PER_ADDRESS="5/minute", SPADES_SIGNUPS_PER_ADDRESS="3/minute",
        SPADES_ROOM_CODE_MISSES_PER_PLAYER="3/minute"))
    yield svc
    svc.stop()


def _from(address: str) -> dict[str, str]:
    return {"x-forwarded-for": address}


async def _login(http: httpx.AsyncClient, name: str, password: str, address: str) -> int:
    r = await http.post("/v1/auth/login", json={"name": name, "password": password},
                        headers=_from(address))
    if r.status_code == 429:
        assert r.json()["code"] == "rate_limited" and int(r.headers["retry-after"]) > 0
    return r.status_code


async def test_wrong_passwords_lock_the_account_from_every_address(strict: Service) -> None:
    name = f"acct{uuid.uuid4().hex[:8]}"
    async with httpx.AsyncClient(base_url=strict.url, timeout=10) as http:
        r = await http.post("/v1/auth/register", json={"name": name, "password": PASSWORD},
                            headers=_from("10.1.0.1"))
        assert r.status_code == 201
        for _ in range(3):
            assert await _login(http, name, "wrong password!", "10.1.0.2") == 401
        assert await _login(http, name, "wrong password!", "10.1.0.2") == 429
        assert await _login(http, name, "wrong password!", "10.1.0.3") == 429
        assert await _login(http, name, PASSWORD, "10.1.0.4") == 429  # locked for the window


async def test_wrong_passwords_from_one_address_lock_that_address_for_every_account(
        strict: Service) -> None:
    names = [f"addr{uuid.uuid4().hex[:8]}" for _ in range(3)]
    async with httpx.AsyncClient(base_url=strict.url, timeout=10) as http:
        for i, name in enumerate(names):
            r = await http.post("/v1/auth/register", json={"name": name, "password": PASSWORD},
                                headers=_from(f"10.2.0.{10 + i}"))
            assert r.status_code == 201
        attacker = "10.2.0.66"
        assert [await _login(http, names[0], "wrong password!", attacker) for _ in range(2)] \
            == [401, 401]
        assert [await _login(http, names[1], "wrong password!", attacker) for _ in range(2)] \
            == [401, 401]
        assert await _login(http, names[2], "wrong password!", attacker) == 401
        assert await _login(http, names[2], PASSWORD, attacker) == 429
        assert await _login(http, names[2], PASSWORD, "10.2.0.67") == 200  # others still sign in


async def test_sign_ups_are_limited_per_address(strict: Service) -> None:
    async with httpx.AsyncClient(base_url=strict.url, timeout=10) as http:
        for i in range(3):
            r = await http.post("/v1/auth/guest", json={"name": f"G{i}"}, headers=_from("10.3.0.1"))
            assert r.status_code == 201, r.text
        r = await http.post("/v1/auth/guest", json={"name": "G4"}, headers=_from("10.3.0.1"))
        assert (r.status_code, r.json()["code"]) == (429, "rate_limited")
        r = await http.post("/v1/auth/register", json={"name": f"r{uuid.uuid4().hex[:8]}",
                                                       "password": PASSWORD},
                            headers=_from("10.3.0.1"))
        assert r.status_code == 429
        r = await http.post("/v1/auth/guest", json={"name": "G5"}, headers=_from("10.3.0.2"))
        assert r.status_code == 201


async def test_wrong_room_codes_lock_the_player_out_of_codes_for_a_while(strict: Service) -> None:
    async with httpx.AsyncClient(base_url=strict.url, timeout=10) as http:
        players = []
        for i in range(2):
            r = await http.post("/v1/auth/guest", json={"name": f"C{i}"},
                                headers=_from(f"10.4.0.{i + 1}"))
            players.append({"authorization": f"Bearer {r.json()['token']}"})
        host, guesser = players
        t = (await http.post("/v1/tables", json={"rules": "house", "private": True},
                             headers=host)).json()
        for path, body in (("/v1/tables/join", {"code": "AAAA22"}),
                           ("/v1/tables/watch", {"code": "AAAA33"}),
                           ("/v1/tables/join", {"code": "AAAA44"})):
            r = await http.post(path, json=body, headers=guesser)
            assert (r.status_code, r.json()["code"]) == (404, "table_not_found")
        for path in ("/v1/tables/join", "/v1/tables/watch"):  # the right code, too late
            r = await http.post(path, json={"code": t["code"]}, headers=guesser)
            assert (r.status_code, r.json()["code"]) == (429, "rate_limited")
            assert int(r.headers["retry-after"]) > 0
        r = await http.get(f"/v1/tables/{t['table_id']}", headers=host)
        assert [s.get("player_id") for s in r.json()["seats"]][1:] == [None] * 3
