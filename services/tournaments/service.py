"""The tournaments service: organizers' tournaments on their own event store.

Commands arrive on ``svc.tournaments.*`` (transport), are decided purely and
committed with their projections (store); committed events go out on the
``TOURNAMENT_EVENTS`` stream right after their commit (the outbox relay is
the backstop); due timers start tournaments and pair rounds (scheduler). The
results feed still records finished games; it becomes the source of match
results once games are opened for matches.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated

import asyncpg
import msgspec

from schemas import subjects
from schemas.bus import EventEnvelope
from services.platform import bus
from services.platform.bus import Consumer
from services.platform.eventstore import EventStore
from services.platform.outbox import OutboxRelay, Publisher
from services.platform.runtime import Runtime
from services.platform.settings import Settings
from services.tournaments.scheduler import Scheduler, wall_ms
from services.tournaments.store import TournamentStore, registry
from services.tournaments.transport import endpoints

NAME = "tournaments"


class TournamentsSettings(Settings, frozen=True, kw_only=True):
    http_port: Annotated[int, msgspec.Meta(
        ge=0, le=65535, description="Port of the HTTP server (health, metrics).")] = 8003
    timer_poll_seconds: Annotated[float, msgspec.Meta(
        gt=0, le=60, description="How often each copy looks for due tournament timers.")] = 1.0
    outbox_sweep_seconds: Annotated[float, msgspec.Meta(
        gt=0, description="Age at which the outbox relay publishes an event its writer "
                          "did not (it died after the commit, or NATS was away).")] = 1.0


async def on_game_ended(conn: asyncpg.Connection, env: EventEnvelope) -> None:
    finished = dt.datetime.fromtimestamp(env.occurred_at_ms / 1000, dt.UTC)
    await conn.execute(
        "INSERT INTO finished_games (game_stream, finished_at) VALUES ($1, $2)"
        " ON CONFLICT DO NOTHING", env.stream, finished)


async def setup(rt: Runtime) -> None:
    assert isinstance(rt.settings, TournamentsSettings)
    await bus.ensure_stream(rt.js, bus.StreamSpec(
        rt.names.tournament_events_stream, (rt.names.tournament_events_all,),
        duplicate_window=rt.settings.js_duplicate_window_seconds,
        replicas=rt.settings.js_replicas))
    relay = OutboxRelay(rt.pool, rt.js, rt.names.tournament_event,
                        sweep_after=rt.settings.outbox_sweep_seconds)
    await relay.start()
    rt.workers.append(relay)
    publish = Publisher(rt.js, rt.names.tournament_event, relay)
    store = TournamentStore(rt.pool, EventStore(rt.pool, registry(), publish=publish))
    scheduler = Scheduler(store, rt.settings.timer_poll_seconds)
    await scheduler.start()
    rt.workers.append(scheduler)
    rt.endpoints.extend(endpoints(store, wall_ms))
    spec = rt.consumer(subjects.TOURNAMENTS_RESULTS,
                       rt.names.game_events_of_type(subjects.GAME_ENDED))
    consumer = Consumer(rt.js, rt.pool, spec, on_game_ended)
    await consumer.start()
    rt.workers.append(consumer)
