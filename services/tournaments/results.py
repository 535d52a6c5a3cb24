"""Results from games: a ``GameEnded`` of a match's game becomes the match's result; and
how the lobby's start of a match ended (``LOBBY_MATCHES``): a start or a no-show.

The ``tournaments-results`` consumer applies each game end once by (stream,
version); the result is written once besides (the same result again is no
change), so a redelivered event, or ``spades resync``, changes no standing. A
game no tournament opened is none of this service's business; a result the
tournament no longer takes (it was cancelled, or an organizer decided the match
already) is logged and dropped, never retried.
"""

from __future__ import annotations

import time
from collections import defaultdict

import asyncpg
import msgspec

from schemas.bus import EventEnvelope
from schemas.events import GameEnded
from schemas.matches import MatchOutcome, parse_lobby_match_id
from schemas.tournaments import commands as cmd
from services.platform import logs
from services.platform.consumer import BatchHandler, Handler, one_at_a_time
from services.platform.events import game_registry
from services.tournaments import metrics
from services.tournaments.calls import answer, result_of, seats_of
from services.tournaments.errors import TournamentError
from services.tournaments.projection import matches_of_games
from services.tournaments.store import TournamentStore

_log = logs.get("tournaments")
def on_games_ended(store: TournamentStore) -> BatchHandler:
    """The consumer's batch: every ending of a fetch that is a tournament match's, found
    in one query, then one fold, append and projection rewrite per tournament (in id
    order, so two copies lock tournaments in the same order), not one per game: a
    512-team round's 256 endings arriving together are a handful of statements."""
    registry = game_registry()

    async def handle(conn: asyncpg.Connection, envs: list[EventEnvelope]) -> None:
        found = await matches_of_games(conn, [env.stream for env in envs])
        results: dict[str, list[cmd.TournamentCommand]] = defaultdict(list)
        games: dict[str, list[str]] = defaultdict(list)
        for env in envs:
            if env.stream not in found:
                continue  # a game no tournament opened
            tournament_id, match_id = found[env.stream]
            ended = registry.decode(env.type, env.schema_version, env.body)
            assert isinstance(ended, GameEnded)
            results[tournament_id].append(result_of(match_id, env, ended))
            games[tournament_id].append(env.stream)
        for tournament_id in sorted(results):
            with metrics.recording(tournament_id, games[tournament_id]):
                events = await store.execute_all_in(conn, tournament_id, results[tournament_id])
                await metrics.recorded(conn, tournament_id, events)

    return handle


def on_game_ended(store: TournamentStore) -> Handler:
    """One ending at a time (the consumer's fallback when a batch fails): a batch of one."""
    return one_at_a_time(on_games_ended(store))


def on_match_outcome(store: TournamentStore) -> Handler:
    """The ``tournaments-matches`` consumer of ``lobby.match.tournament.*``: a started game
    is recorded as called, a ready check that failed as a no-show, at once (the caller
    would find the same when it asks again after the deadline, which makes a lost outcome
    late, never lost). Applied once by (stream, version); the commands are idempotent too."""

    async def handle(conn: asyncpg.Connection, env: EventEnvelope) -> None:
        outcome = msgspec.msgpack.decode(env.body, type=MatchOutcome)
        found = parse_lobby_match_id(outcome.match_id)
        if found is None:
            return
        tournament_id, match_id = found
        state = await store.locked(conn, tournament_id)
        m = state.matches.get(match_id)
        if m is None or m.outcome is not None or m.call == "started":
            return  # a started match's next change is its result: the caller recorded this
        command = answer(match_id, outcome.state, outcome.game_id, outcome.table_id, 0,
                         {*outcome.absent, *outcome.declined}, int(time.time() * 1000),
                         seats_of(state, m))
        if command is None:
            return  # failed: the caller asks again
        try:
            await store.execute_in(conn, tournament_id, command)
        except TournamentError as exc:
            _log.warning("outcome_dropped", tournament=tournament_id, match=match_id,
                         code=exc.code)

    return handle
