"""The HTTP side every service shares: liveness that follows the NATS connection, and
errors nobody foresaw answered in the documented shape and logged with a request id."""

from __future__ import annotations

import asyncio

import pytest
from litestar import get, post
from litestar.testing import AsyncTestClient

from schemas import subjects
from services.platform import connection, version
from services.platform.http import create_app
from tests.metrics import value


async def test_healthz_fails_once_the_server_closed_the_connection(nats_url: str) -> None:
    nc = await connection.connect(nats_url, "liveness-test")
    app = create_app("probe", {}, lambda: not nc.is_closed)
    async with AsyncTestClient(app) as http:
        assert (await http.get("/healthz")).status_code == 200
        # What an unchecked id once did: nats-server drops a client whose control line
        # is too long, and the client does not come back.
        await nc.publish("x" * 5000, b"")
        async with asyncio.timeout(5):
            while not nc.is_closed:
                await asyncio.sleep(0.05)
        r = await http.get("/healthz")
        assert (r.status_code, r.json()["status"]) == (503, "dead")
    await nc.close()


def test_subjects_refuse_an_id_that_is_not_one_token() -> None:
    names = subjects.Names("p")
    assert names.game_command("a1_B-2") == "p.game.cmd.a1_B-2"
    for bad in ("x" * 65, "", "a.b", "a b", "*", ">", "a\x00", "é"):
        for build in (names.game_command, names.player_note, names.game_chat,
                      names.lobby_presence, lambda g: names.game_event(g, "GameEnded")):
            try:
                build(bad)
            except subjects.BadId:
                continue
            raise AssertionError(f"{bad!r} made a subject")


async def test_an_unforeseen_error_is_a_500_with_a_request_id_that_finds_the_log_line(
        capsys: pytest.CaptureFixture[str]) -> None:
    @get("/boom", sync_to_thread=False)
    def boom() -> None:
        raise KeyError("a bug")

    async with AsyncTestClient(create_app("probe", {}, lambda: True, [boom])) as http:
        r = await http.get("/boom")
    body = r.json()
    assert r.status_code == 500 and set(body) == {"code", "message"}
    assert body["code"] == "internal_error" and "a bug" not in body["message"]
    request_id = r.headers["x-request-id"]
    assert request_id in body["message"]
    logged = capsys.readouterr().out
    assert "request_failed" in logged and request_id in logged and "a bug" in logged


async def test_a_body_that_is_not_utf8_or_nests_too_deeply_is_a_400() -> None:
    @post("/echo", sync_to_thread=False)
    def echo(data: dict[str, object]) -> dict[str, object]:
        return data

    async with AsyncTestClient(create_app("probe", {}, lambda: True, [echo])) as http:
        for body in (b'{"a": "\xff"}'.replace(b"\\xff", b"\xff"), b"[" * 100_000):
            r = await http.post("/echo", content=body,
                                headers={"content-type": "application/json"})
            assert r.status_code == 400, (body[:10], r.text)


async def test_metrics_say_what_the_probes_would_and_count_internal_errors() -> None:
    @get("/boom", sync_to_thread=False)
    def boom() -> None:
        raise RuntimeError("unforeseen")

    async def fine() -> bool:
        return True

    async def away() -> bool:
        return False

    app = create_app("probe", {"postgres": fine, "nats": away}, lambda: True, [boom])
    async with AsyncTestClient(app) as http:
        health = (await http.get("/healthz")).json()
        assert health == {"status": "ok", "service": "probe", "version": version()}
        before = value((await http.get("/metrics")).text, "spades_http_internal_errors_total")
        assert (await http.get("/boom")).status_code == 500
        text = (await http.get("/metrics")).text
    assert value(text, "spades_http_internal_errors_total") == before + 1
    assert value(text, "spades_live") == 1
    assert value(text, "spades_ready", check="postgres") == 1
    assert value(text, "spades_ready", check="nats") == 0
