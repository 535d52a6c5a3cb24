"""Finished games into ratings: the ``GameEnded`` consumer's handler, and the notes
that tell players after the commit.

The handler runs inside the consumer's transaction, which also records (stream,
version): a redelivered or republished ending never rates twice. Casual games,
and games with an empty or bot seat, move no rating. Once committed, each player
of a rated game gets a ``rating_changed`` note (``player.note.<player_id>``),
read back from the history rows, so a note only ever says what was stored.
"""

from __future__ import annotations

import datetime as dt

import asyncpg
import msgspec
from nats.aio.client import Client

from schemas.bus import EventEnvelope
from schemas.events import GameEnded
from schemas.notes import RatingChanged
from schemas.subjects import Names
from services.platform import logs
from services.platform.bus import AfterCommit, Handler
from services.platform.events import game_registry
from services.ratings import elo, store

_log = logs.get("ratings")


def rated_players(event: GameEnded) -> tuple[str, str, str, str] | None:
    """The four people of a rated game, or None when the game moves no rating (one
    person in two seats would be rated against itself)."""
    players = event.players
    if (not event.rated or not all(players) or any(p.startswith("bot:") for p in players)
            or len(set(players)) < 4):
        return None
    return players


def handler(initial: int, schedule: elo.KSchedule) -> Handler:
    events = game_registry()

    async def on_game_ended(conn: asyncpg.Connection, env: EventEnvelope) -> None:
        event = events.decode(env.type, env.schema_version, env.body)
        if not isinstance(event, GameEnded):
            return
        players = rated_players(event)
        if players is None:
            return
        rows = await store.lock(conn, players, initial)
        before = [rows[p]["rating"] for p in players]
        games = [rows[p]["games"] for p in players]
        changes = elo.rate((before[0], before[1], before[2], before[3]),
                           (games[0], games[1], games[2], games[3]),
                           event.winner, event.abandoned, schedule)
        ended_at = dt.datetime.fromtimestamp(env.occurred_at_ms / 1000, dt.UTC)
        await store.record(conn, env.stream, players, before, changes, ended_at)
        _log.info("rated", game=env.stream, before=before, deltas=[c.delta for c in changes])

    return on_game_ended


def notifier(pool: asyncpg.Pool, nc: Client, names: Names) -> AfterCommit:
    encoder = msgspec.msgpack.Encoder()

    async def tell(applied: list[EventEnvelope]) -> None:
        for row in await store.moves(pool, [env.stream for env in applied]):
            note = RatingChanged(game_id=row["game_stream"], rating_before=row["rating_before"],
                                 rating_after=row["rating_after"])
            await nc.publish(names.player_note(row["player_id"]), encoder.encode(note))

    return tell
