"""Events JetStream holds that the database does not: after a restore to an earlier
moment, or a failover to a standby that had not received the last commits.

Each stored event has its own id (``event_id``), carried in the envelope JetStream
holds, and kept when `spades resync` publishes it again; so an event on JetStream whose
id no database of the games has is one the database lost. Left there it would mislead
whoever reads the stream (a game's followers, a consumer rebuilding its state), and the
game, played on from the database, would write other events under the same versions.
``purge`` removes each such game's events from JetStream so that they can be published
again from the database (docs/operators.md).
"""

from __future__ import annotations

from collections.abc import Sequence

import asyncpg
import msgspec
from nats.js import api

from schemas.bus import EventEnvelope
from schemas.subjects import Names
from services.platform.busclient import BusClient

_decoder = msgspec.msgpack.Decoder(EventEnvelope)
_BATCH = 500


async def find(pools: Sequence[asyncpg.Pool], client: BusClient, names: Names
               ) -> dict[str, list[EventEnvelope]]:
    """The events on the game events stream that no database has, by game, in stream
    order."""
    sub = await client.js.pull_subscribe(
        names.game_events_all, stream=names.game_events_stream,
        config=api.ConsumerConfig(ack_policy=api.AckPolicy.NONE,
                                  deliver_policy=api.DeliverPolicy.ALL,
                                  inactive_threshold=60.0))
    ahead: dict[str, list[EventEnvelope]] = {}
    try:
        pending = (await client.js.stream_info(names.game_events_stream)).state.messages
        while pending:
            msgs = await sub.fetch(min(_BATCH, pending), timeout=10)
            envelopes = [_decoder.decode(m.data) for m in msgs]
            known = await _stored(pools, [e.event_id for e in envelopes])
            for envelope in envelopes:
                if envelope.event_id not in known:
                    ahead.setdefault(envelope.stream, []).append(envelope)
            pending = msgs[-1].metadata.num_pending
    finally:
        await sub.unsubscribe()
    return ahead


async def _stored(pools: Sequence[asyncpg.Pool], event_ids: list[str]) -> set[str]:
    known: set[str] = set()
    for pool in pools:
        rows = await pool.fetch("SELECT event_id FROM events WHERE event_id = ANY($1::uuid[])",
                                event_ids)
        known.update(str(r["event_id"]) for r in rows)
    return known


async def purge(client: BusClient, names: Names, games: Sequence[str]) -> None:
    """Remove every event of these games from JetStream (they are published again from
    the database next)."""
    for game in games:
        await client.js.purge_stream(names.game_events_stream,
                                     subject=names.game_event(game, "*"))
