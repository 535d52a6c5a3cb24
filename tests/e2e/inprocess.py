"""A lobby gateway built in the test's own process beside the platform's: a test reaches
into its parts (a hub, a socket's outbox) or slows one of its reads, on the platform's
real Postgres and NATS."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial

import asyncpg

from schemas.subjects import Names
from services.lobby.base.settings import LobbySettings
from services.lobby.clients.broadcasts import Broadcasts
from services.lobby.clients.gameworkers import GameClient
from services.lobby.clients.ratings import RatingsBus
from services.lobby.clients.tournaments import TournamentBus
from services.lobby.edge.gateway import Gateway
from services.lobby.games import store as games_store
from services.lobby.matches.opening import Matches
from services.lobby.matches.outcomes import Outcomes
from services.lobby.ranked.queue import Queue
from services.lobby.tables.tables import Tables
from services.lobby.tournaments.relay import Tournaments
from services.platform import connection
from services.platform.busclient import BusClient


@asynccontextmanager
async def gateway(database_url: str, nats_url: str, prefix: str, name: str,
                  settings: LobbySettings) -> AsyncIterator[Gateway]:
    """A gateway on the deployment ``prefix`` names, not started (its caller may)."""
    nc = await connection.connect(nats_url, name)
    pool = await asyncpg.create_pool(database_url, server_settings={"search_path": "lobby"})
    assert pool is not None
    try:
        names = Names(prefix)
        games = GameClient(BusClient(nc), names, 2.0)
        broadcasts = Broadcasts(BusClient(nc), names)
        matches = Matches(pool, games, broadcasts, Outcomes(pool, BusClient(nc), names))
        ratings = RatingsBus(BusClient(nc), names, 2.0)
        tournaments = Tournaments(pool, TournamentBus(BusClient(nc), names, 2.0), ratings,
                                  broadcasts)
        queue = Queue(pool, games, broadcasts, matches, ratings, settings, name,
                      partial(games_store.finished_games, pool))
        yield Gateway(Tables(pool, games, broadcasts, matches), games, broadcasts, names,
                      settings, tournaments, queue)
    finally:
        await pool.close()
        await nc.close()
