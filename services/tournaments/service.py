"""The tournaments service: organizers' tournaments on their own event store.

Commands arrive on ``svc.tournaments.*`` (transport), are decided purely and
committed with their projections (store); committed events go out on the
``TOURNAMENT_EVENTS`` stream right after their commit (the outbox relay is
the backstop); due timers start tournaments and pair rounds, and due calls open
matches through the lobby (scheduler); a game's end is its match's result
(results).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Annotated

import msgspec
from tenacity import AsyncRetrying, retry_if_exception_type, wait_fixed

from schemas import subjects
from schemas.bus import EventEnvelope
from services.platform import bus
from services.platform.bus import StreamMissing
from services.platform.consumer import Consumer
from services.platform.eventstore import EventStore
from services.platform.eventstore.outbox import OutboxRelay, Publisher
from services.platform.runtime import Runtime
from services.platform.settings import Settings
from services.tournaments.results import on_game_ended, on_games_ended, on_match_outcome
from services.tournaments.scheduler import Caller, Scheduler, wall_ms
from services.tournaments.store import CALL_WINDOW, CLAIM_MS, TournamentStore, registry
from services.tournaments.transport import MatchCalls, endpoints

NAME = "tournaments"


class TournamentsSettings(Settings, frozen=True, kw_only=True):
    http_port: Annotated[int, msgspec.Meta(
        ge=0, le=65535, description="Port of the HTTP server (health, metrics).")] = 8003
    timer_poll_seconds: Annotated[float, msgspec.Meta(
        gt=0, le=60, description="How often each copy looks for due tournament timers "
                                 "and matches to call.")] = 1.0
    lobby_timeout_seconds: Annotated[float, msgspec.Meta(
        gt=0, le=60, description="How long to wait for the lobby to open a match.")] = 5.0
    call_window: Annotated[int, msgspec.Meta(
        ge=1, le=1024, description="Asks of the lobby to open a match in flight at once "
                                   "(a sliding window over every due match).")] = CALL_WINDOW
    call_claim_seconds: Annotated[float, msgspec.Meta(
        gt=0, le=600, description="How long a match taken to be asked of the lobby stays "
                                  "taken: another copy asks again only after this, if the "
                                  "one that took it died before recording the answer.")] = \
        CLAIM_MS / 1000
    outbox_sweep_seconds: Annotated[float, msgspec.Meta(
        gt=0, description="Age at which the outbox relay publishes an event its writer "
                          "did not (it died after the commit, or NATS was away).")] = 1.0


class WhenStreamExists:
    """A consumer of a stream another service makes (LOBBY_MATCHES, the lobby's): started
    as soon as the stream exists, so this service may come up first."""

    def __init__(self, consumer: Consumer, retry_seconds: float = 2.0) -> None:
        self.consumer, self.retry = consumer, retry_seconds
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self._task = asyncio.create_task(self._start(), name="await-stream")

    async def _start(self) -> None:
        # Forever: the stream comes when its service does; stop() cancels the wait.
        async for attempt in AsyncRetrying(
                retry=retry_if_exception_type(StreamMissing),
                wait=wait_fixed(self.retry), reraise=True):
            with attempt:
                await self.consumer.start()

    async def stop(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        elif self._task is not None:
            await self.consumer.stop()

    @property
    def running(self) -> bool:
        return self._task is not None and (not self._task.done() or self.consumer.running)


async def setup(rt: Runtime) -> None:
    assert isinstance(rt.settings, TournamentsSettings)
    await bus.ensure_stream(rt.client, bus.StreamSpec(
        rt.names.tournament_events_stream, (rt.names.tournament_events_all,),
        duplicate_window=rt.settings.js_duplicate_window_seconds,
        replicas=rt.settings.js_replicas))
    relay = OutboxRelay(rt.pool, rt.client, rt.names.tournament_event,
                        sweep_after=rt.settings.outbox_sweep_seconds)
    await relay.start()
    rt.workers.append(relay)
    publish = Publisher(rt.client, rt.names.tournament_event, relay)
    store = TournamentStore(rt.pool, EventStore(rt.pool, registry(), publish=publish),
                            window=rt.settings.call_window,
                            claim_ms=int(rt.settings.call_claim_seconds * 1000))
    # Each wakes the next as soon as it has done its part, rather than at its next poll:
    # results recorded (a round may be over: its pairing due; an elimination match paired
    # with them: its call due), a round paired (its calls due).
    caller = Caller(store, MatchCalls(rt.client, rt.names, rt.settings.lobby_timeout_seconds),
                    rt.settings.timer_poll_seconds)
    await caller.start()
    rt.workers.append(caller)
    scheduler = Scheduler(store, rt.settings.timer_poll_seconds, fired=caller.wake)
    await scheduler.start()
    rt.workers.append(scheduler)
    rt.endpoints.extend(endpoints(store, wall_ms))
    spec = rt.consumer(subjects.TOURNAMENTS_RESULTS,
                       rt.names.game_events_of_type(subjects.GAME_ENDED))

    async def recorded(_: list[EventEnvelope]) -> None:
        scheduler.wake()
        caller.wake()

    consumer = Consumer(rt.client, rt.pool, spec, on_game_ended(store),
                        batch_handler=on_games_ended(store), after_commit=recorded,
                        span=("tournament result", "game.id"))
    await consumer.start()
    rt.workers.append(consumer)
    outcomes = WhenStreamExists(Consumer(rt.client, rt.pool, bus.ConsumerSpec(
        rt.names.lobby_matches_stream, subjects.TOURNAMENTS_MATCHES,
        rt.names.lobby_matches_of("tournament"), ack_wait=rt.settings.js_ack_wait_seconds,
        max_deliver=rt.settings.js_max_deliver), on_match_outcome(store)))
    await outcomes.start()
    rt.workers.append(outcomes)
