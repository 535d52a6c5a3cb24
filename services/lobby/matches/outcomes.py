"""How each match's start ended, published once recorded (``Outcomes``)."""

from __future__ import annotations

import time

import msgspec
from prometheus_client import Counter

from schemas.bus import EventEnvelope
from schemas.matches import MatchOutcome
from schemas.subjects import Names
from services.lobby.matches import store
from services.platform import logs
from services.platform.busclient import BusClient

_log = logs.get("lobby")
OUTCOME = "MatchOutcome"  # the envelope type of an outcome on LOBBY_MATCHES
ENDED = Counter("spades_match_starts_total", "How matches' starts ended (published outcomes)",
                ["origin", "state"])


class Outcomes:
    """Publishes how each match's start ended on ``LOBBY_MATCHES``, at least once.

    An outcome goes out in the envelope every event stream uses (stream
    ``match-<id>``, version 1: a match's start ends once), so other services consume
    it with their usual idempotent consumer. The message id makes a republish within
    the stream's duplicate window a no-op on the stream itself.
    """

    def __init__(self, pool: store.Pool, client: BusClient, names: Names) -> None:
        self.pool, self.client, self.names = pool, client, names

    async def publish(self, m: store.MatchRow) -> None:
        outcome = MatchOutcome(
            match_id=m.match_id, origin=m.origin, origin_id=m.origin_id,  # type: ignore[arg-type]
            state=m.state, table_id=m.table_id, game_id=m.game_id,  # type: ignore[arg-type]
            rated=m.rated, absent=m.absent, declined=m.declined)
        env = EventEnvelope(stream=f"match-{m.match_id}", version=1, position=0, type=OUTCOME,
                            schema_version=1, event_id=m.match_id,
                            occurred_at_ms=int(time.time() * 1000),  # when it was sent
                            correlation_id=m.match_id, causation_id=None,
                            body=msgspec.msgpack.encode(outcome))
        try:
            await self.client.publish_once(self.names.lobby_match(m.origin, m.match_id), env,
                                           msg_id=f"{m.match_id}:outcome")
            await store.outcome_sent(self.pool, m.match_id)
            ENDED.labels(m.origin, m.state).inc()
        except Exception as exc:  # NATS or Postgres away: the sweep publishes it later
            _log.warning("outcome_unsent", match_id=m.match_id, error=repr(exc))

    async def republish(self, older_than_seconds: float) -> int:
        unsent = await store.unsent_outcomes(self.pool, older_than_seconds)
        for m in unsent:
            await self.publish(m)
        return len(unsent)
