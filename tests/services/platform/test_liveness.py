"""Liveness follows the NATS connection: one the server closed for good fails /healthz."""

from __future__ import annotations

import asyncio

from litestar.testing import AsyncTestClient

from schemas import subjects
from services.platform import bus
from services.platform.http import create_app


async def test_healthz_fails_once_the_server_closed_the_connection(nats_url: str) -> None:
    nc = await bus.connect(nats_url, "liveness-test")
    app = create_app("probe", "0", {}, lambda: not nc.is_closed)
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
        for build in (names.game_command, names.game_events_since, names.game_chat,
                      names.lobby_presence, lambda g: names.game_event(g, "GameEnded")):
            try:
                build(bad)
            except subjects.BadId:
                continue
            raise AssertionError(f"{bad!r} made a subject")
