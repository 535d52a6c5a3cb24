"""The ratings service: Elo from finished games, applied once per game.

It follows ``GameEnded`` events on JetStream with a durable consumer; the
consumer records (stream, version) in the same transaction as the new ratings,
so a redelivered or republished event never counts twice.
"""

from __future__ import annotations

from typing import Annotated

import asyncpg
import msgspec

from schemas import subjects
from schemas.bus import EventEnvelope
from schemas.events import GameEnded
from services.platform import logs
from services.platform.bus import Consumer
from services.platform.events import game_registry
from services.platform.runtime import Runtime
from services.platform.settings import Settings
from services.ratings import elo, store

NAME = "ratings"


class RatingsSettings(Settings, frozen=True, kw_only=True):
    http_port: Annotated[int, msgspec.Meta(
        ge=0, le=65535, description="Port of the HTTP server (health, metrics).")] = 8002
    initial_rating: Annotated[int, msgspec.Meta(
        ge=0, description="Rating of a player's first rated game.")] = 1500
    k_factor: Annotated[int, msgspec.Meta(
        ge=1, le=100, description="Elo K: the most one game can move a rating.")] = 32


def handler(settings: RatingsSettings):  # type: ignore[no-untyped-def]
    events = game_registry()
    log = logs.get(NAME)

    async def on_game_ended(conn: asyncpg.Connection, env: EventEnvelope) -> None:
        event = events.decode(env.type, env.schema_version, env.body)
        if (not isinstance(event, GameEnded) or not event.rated or not all(event.players)
                or any(p.startswith("bot:") for p in event.players)):
            return  # casual games, and games with an empty or bot seat, move no rating
        players = tuple(event.players)
        before = await store.current(conn, players, settings.initial_rating)
        after = elo.update((before[0], before[1], before[2], before[3]), event.winner,
                           settings.k_factor)
        await store.record(conn, env.stream, players, before, after)
        log.info("rated", game=env.stream, before=before, after=list(after))

    return on_game_ended


async def setup(rt: Runtime) -> None:
    assert isinstance(rt.settings, RatingsSettings)
    spec = rt.consumer(subjects.RATINGS_RESULTS, rt.names.game_events_of_type(subjects.GAME_ENDED))
    consumer = Consumer(rt.js, rt.pool, spec, handler(rt.settings))
    await consumer.start()
    rt.workers.append(consumer)
