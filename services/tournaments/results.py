"""Results from games: a ``GameEnded`` of a match's game becomes the match's result.

The ``tournaments-results`` consumer applies each game end once by (stream,
version); the result is written once besides (the same result again is no
change), so a redelivered event, or ``spades resync``, changes no standing. A
game no tournament opened is none of this service's business; a result the
tournament no longer takes (it was cancelled, or an organizer decided the match
already) is logged and dropped, never retried.
"""

from __future__ import annotations

import asyncpg

from schemas.bus import EventEnvelope
from schemas.events import GameEnded
from services.platform import logs
from services.platform.bus import Handler
from services.platform.events import game_registry
from services.tournaments.calls import result_of
from services.tournaments.errors import TournamentError
from services.tournaments.store import TournamentStore, match_of_game

_log = logs.get("tournaments")
def on_game_ended(store: TournamentStore) -> Handler:
    registry = game_registry()

    async def handle(conn: asyncpg.Connection, env: EventEnvelope) -> None:
        found = await match_of_game(conn, env.stream)
        if found is None:
            return
        tournament_id, match_id = found
        ended = registry.decode(env.type, env.schema_version, env.body)
        assert isinstance(ended, GameEnded)
        try:
            await store.execute_in(conn, tournament_id, result_of(match_id, env, ended))
        except TournamentError as exc:
            _log.warning("result_dropped", tournament=tournament_id, match=match_id,
                         game=env.stream, code=exc.code)

    return handle
