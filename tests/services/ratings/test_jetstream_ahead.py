"""JetStream ahead of the database (a restore to an earlier moment, a failover that lost
the last commits): `spades resync --check` names the games whose events the database no
longer holds, and `spades resync` removes them from JetStream, publishes those games
again from the database and rebuilds the ratings from the games that exist."""

from __future__ import annotations

import asyncio

import nats.js.errors
import pytest

from services import cli
from services.platform.consumer import Consumer
from services.platform.events import game_registry
from services.platform.eventstore import EventStore
from services.platform.eventstore.outbox import OutboxRelay
from services.ratings import results
from tests.services.ratings.conftest import SYSTEM, RatedGames, ended
from tests.waiting import until

PLAYERS = ("a", "b", "c", "d")


async def test_events_the_database_lost_are_found_removed_and_unrated(
        rated_games: RatedGames, nats_url: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    games, ratings, names, client = (rated_games.games, rated_games.ratings, rated_games.names,
                                     rated_games.client)
    consumer = Consumer(client, ratings, rated_games.spec, results.handler(SYSTEM))
    store = EventStore(games, game_registry())
    for name, value in (("DATABASE_URL", rated_games.url), ("NATS_URL", nats_url),
                        ("SPADES_NATS_PREFIX", names.prefix)):
        monkeypatch.setenv(name, value)

    async def resync(*args: str) -> str:
        """`spades resync ARGS` as the command line runs it (in a thread: it runs its own
        event loop)."""
        capsys.readouterr()
        command = cli.parser().parse_args(["resync", *args])
        assert await asyncio.to_thread(command.func, command) == 0
        return capsys.readouterr().out

    async def applied(count: int) -> bool:
        return await ratings.fetchval("SELECT count(*) FROM consumer_processed") == count

    await consumer.start()
    try:
        await store.append("g1", 0, [ended(PLAYERS, winner=0)])
        await store.append("g2", 0, [ended(PLAYERS, winner=1)])
        await OutboxRelay(games, client, names.game_event).drain()
        await until(lambda: applied(2), timeout=15)
        assert await rated_games.rated() == [1498, 1502, 1498, 1502]  # a win each way
        # The database loses the second game (its rows gone as a restore drops them);
        # JetStream and the ratings kept it.
        await games.execute("DELETE FROM events WHERE stream = 'g2'")

        said = await resync("--check")
        assert "game g2: JetStream holds 1 event(s) the database does not " \
               "(versions 1-1: GameEnded)" in said
        assert "game g1" not in said and "1 game(s) with events on JetStream" in said

        said = await resync()
        assert "rebuilding the ratings" in said
        await until(lambda: applied(1), timeout=15)
        assert await rated_games.rated() == [1520, 1480, 1520, 1480]  # only the game that exists
        assert "0 game(s)" in await resync("--check")
        with pytest.raises(nats.js.errors.NotFoundError):
            await client.js.get_last_msg(names.game_events_stream, names.game_event("g2", "*"))
    finally:
        await consumer.stop()
