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

from schemas.bus import EventEnvelope
from schemas.events import GameEnded
from schemas.notes import RatingChanged
from schemas.seats import opponents_of, partner_of
from schemas.subjects import Names
from services.platform import logs, tracing
from services.platform.busclient import BusClient
from services.platform.consumer import AfterCommit, BatchHandler, Handler, one_at_a_time
from services.platform.events import game_registry
from services.ratings import store
from services.ratings.system import RatingSystem

_log = logs.get("ratings")


def rated_players(event: GameEnded) -> tuple[str, str, str, str] | None:
    """The four people of a rated game, or None when the game moves no rating (one
    person in two seats would be rated against itself)."""
    players = event.players
    if (not event.rated or not all(players) or any(p.startswith("bot:") for p in players)
            or len(set(players)) < 4):
        return None
    return players


def batch_handler(system: RatingSystem) -> BatchHandler:
    """Rate a run of endings in order, in three statements whatever its length: lock
    every player of the run, work the changes out game by game (a player in two of
    the games carries the first one's result into the second, as if applied one at
    a time) by ``system``, then write the players' rows and the history. A game fair
    play voided (``voided_games``, read once the rows are locked, so a void committed
    meanwhile is seen) moves no rating."""
    events = game_registry()

    async def on_games_ended(conn: asyncpg.Connection, envs: list[EventEnvelope]) -> None:
        games = []
        for env in envs:
            event = events.decode(env.type, env.schema_version, env.body)
            players = rated_players(event) if isinstance(event, GameEnded) else None
            if players is not None:
                games.append((env, event, players))
        if not games:
            return
        rows = await store.lock(conn, [p for _, _, ps in games for p in ps], system.initial)
        voided = await store.voided(conn, [env.stream for env, _, _ in games])
        now = {p: store.Standing.of(r) for p, r in rows.items()}
        history: list[store.Move] = []
        for env, event, players in games:
            assert isinstance(event, GameEnded)
            if env.stream in voided:
                _log.info("voided_game_not_rated", game=env.stream)
                continue
            ended_at = dt.datetime.fromtimestamp(env.occurred_at_ms / 1000, dt.UTC)
            with tracing.within(tracing.consuming(env.stream)):  # its line: the game's span
                history += rate_game(system, now, env.stream, players, event.winner,
                                     event.abandoned, ended_at)
        await store.record(conn, [now[p] for p in sorted(now)], history)

    return on_games_ended


def rate_game(system: RatingSystem, now: dict[str, store.Standing], game: str,
              players: tuple[str, str, str, str], winner: int | None,
              abandoned: tuple[int, ...], ended_at: dt.datetime) -> list[store.Move]:
    """One game rated from the players' standings in ``now`` (moved on in place): the
    four history rows, in seat order. The consumer and the rebuild without voided games
    (``rebuild.py``) both rate through here, so they cannot disagree."""
    a, b, c, d = (now[p] for p in players)
    before = (a.rating, b.rating, c.rating, d.rating)
    changes = system.rate(before, (a.games, b.games, c.games, d.games), winner, abandoned)
    moves = []
    for seat, (player, change) in enumerate(zip(players, changes, strict=True)):
        left, right = opponents_of(seat)
        now[player] = now[player].after(change, ended_at)
        moves.append(store.Move(player, game, before[seat], change,
                                partner=players[partner_of(seat)],
                                opponents=(players[left], players[right]), rated_at=ended_at))
    _log.info("rated", game=game, before=before, deltas=[c.delta for c in changes])
    return moves


def handler(system: RatingSystem) -> Handler:
    """One ending at a time (the consumer's fallback, and replays): a run of one."""
    return one_at_a_time(batch_handler(system))


def notifier(pool: asyncpg.Pool, client: BusClient, names: Names) -> AfterCommit:
    async def tell(applied: list[EventEnvelope]) -> None:
        for row in await store.moves(pool, [env.stream for env in applied]):
            note = RatingChanged(game_id=row["game_stream"], rating_before=row["rating_before"],
                                 rating_after=row["rating_after"])
            # In the game's ``rating computed`` span: the note carries its trace to the lobby.
            with tracing.within(tracing.consuming(row["game_stream"])):
                await client.publish(names.player_note(row["player_id"]), note)

    return tell
