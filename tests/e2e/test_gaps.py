"""A gateway that misses events on JetStream fills the gap from the game worker's store."""

from __future__ import annotations

import asyncio

from engine.evolve import fold
from services.lobby.base.settings import LobbySettings
from services.lobby.edge.following import Hub
from services.lobby.matches import store as matchstore
from tests.e2e import inprocess
from tests.e2e.conftest import Platform
from tests.e2e.truth import stored_events
from tests.services.lobby.harness import Player


async def test_events_after_a_gap_wait_until_the_worker_supplies_the_missing_ones(
        platform: Platform, database_url: str, nats_url: str, nats_prefix: str) -> None:
    host = await Player.guest(platform.a.url, "Host")
    t = await host.ok("POST", "/v1/tables", {"rules": "quick", "seat": None})
    t = await host.ok("POST", f"/v1/tables/{t['table_id']}/start")
    game_id = t["game_id"]
    events: list[object] = []
    for _ in range(100):
        events = await stored_events(database_url, game_id)
        if len(events) >= 40:
            break
        await asyncio.sleep(0.05)
    assert len(events) >= 40

    settings = LobbySettings(database_url="", nats_url="", resume_max_events=16)
    async with inprocess.gateway(database_url, nats_url, f"{nats_prefix}e2e", "gaps",
                                 settings) as gateway:
        table = await matchstore.table_of_game(gateway.tables.pool, game_id)
        assert table is not None
        hub = Hub(gateway, game_id, table, gateway.hubs.stop_following)  # fed by hand here
        hub.order.take(3, events[2])  # type: ignore[arg-type]
        hub.order.take(30, events[29])  # type: ignore[arg-type]
        assert hub.state.version == 0 and set(hub.order.pending) == {3, 30}
        for _ in range(100):
            if hub.state.version >= 30:
                break
            await asyncio.sleep(0.05)
        assert hub.state.version >= 30 and not hub.order.pending
        events = await stored_events(database_url, game_id)  # the game went on meanwhile
        assert hub.state == fold(events[:hub.state.version])  # type: ignore[arg-type]
        # Only the last events are kept: a resume from further back gets a snapshot.
        assert [e for e, _ in hub.history] == events[hub.state.version - 16:hub.state.version]
        assert [s for _, s in hub.history][-1] == hub.state
        hub.order.take(2, events[1])  # type: ignore[arg-type]  # a late duplicate changes nothing
        assert len(hub.history) == 16
        await hub.stop()
        # Readiness asks the gateway: ready once started, not while it stops.
        assert not gateway.running
        await gateway.start()
        assert gateway.running
        await gateway.stop()
        assert not gateway.running
    await host.aclose()
