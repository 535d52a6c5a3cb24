"""Idle guests are purged: once their token has expired they can never act again."""

from __future__ import annotations

import uuid

import asyncpg

from services.lobby.accounts import guests
from services.lobby.tables.store import seated_players
from tests.services.lobby.harness import Player, Service


async def test_expired_guests_go_unless_seated_at_a_live_table(lobby: Service,
                                                               database_url: str) -> None:
    idle = await Player.guest(lobby.url, "Idle")
    seated = await Player.guest(lobby.url, "Seated")
    await seated.ok("POST", "/v1/tables", {"rules": "house"})
    fresh = await Player.guest(lobby.url, "Fresh")
    name = f"reg{uuid.uuid4().hex[:8]}"
    r = await idle.http.post("/v1/auth/register", json={"name": name, "password": "long enough"})
    registered = r.json()["player_id"]
    pool = await asyncpg.create_pool(database_url, server_settings={"search_path": "lobby"})
    assert pool is not None
    try:
        old = [idle.player_id, seated.player_id, registered]
        await pool.execute("UPDATE accounts SET created_at = now() - interval '2 days'"
                           " WHERE player_id = ANY($1::uuid[])", old)
        assert await guests.purge(pool, 86_400, seated_players) >= 1
        left = {str(r["player_id"]) for r in await pool.fetch(
            "SELECT player_id FROM accounts WHERE player_id = ANY($1::uuid[])",
            [*old, fresh.player_id])}
        assert left == {seated.player_id, registered, fresh.player_id}
    finally:
        await pool.close()
    for p in (idle, seated, fresh):
        await p.aclose()
