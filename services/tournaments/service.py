"""The tournaments service: records finished games for brackets and standings.

Formats, registration and schedules arrive with their own issue; what runs now
is the results feed they will stand on, applied once per game.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated

import asyncpg
import msgspec

from schemas import subjects
from schemas.bus import EventEnvelope
from services.platform.bus import Consumer
from services.platform.runtime import Runtime
from services.platform.settings import Settings

NAME = "tournaments"


class TournamentsSettings(Settings, frozen=True, kw_only=True):
    http_port: Annotated[int, msgspec.Meta(
        ge=0, le=65535, description="Port of the HTTP server (health, metrics).")] = 8003


async def on_game_ended(conn: asyncpg.Connection, env: EventEnvelope) -> None:
    finished = dt.datetime.fromtimestamp(env.occurred_at_ms / 1000, dt.UTC)
    await conn.execute(
        "INSERT INTO finished_games (game_stream, finished_at) VALUES ($1, $2)"
        " ON CONFLICT DO NOTHING", env.stream, finished)


async def setup(rt: Runtime) -> None:
    spec = rt.consumer(subjects.TOURNAMENTS_RESULTS,
                       rt.names.game_events_of_type(subjects.GAME_ENDED))
    consumer = Consumer(rt.js, rt.pool, spec, on_game_ended)
    await consumer.start()
    rt.workers.append(consumer)
