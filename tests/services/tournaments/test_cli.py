"""`spades tournament list | show | replay` against a stored tournament."""

from __future__ import annotations

import contextlib
import os
import random
import uuid
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

from schemas.tournaments import commands as cmd
from services import dev_cli, devdata
from services.platform.db import create_pool
from services.platform.eventstore import EventStore
from services.tournaments.store import TournamentStore, registry
from tests.services.test_cli import spades

from .driver import MINUTE, OPENS, STARTS, settings


async def test_list_show_and_replay_a_played_tournament(
        make_database: Callable[[], Awaitable[str]]) -> None:
    url = await make_database()
    pool = await create_pool(url, "tournaments")
    store = TournamentStore(pool, EventStore(pool, registry()))
    tid = str(uuid.uuid4())
    rng = random.Random(3)
    try:
        await store.execute(tid, cmd.CreateTournament(
            at=OPENS, tournament_id=tid, organizer="org",
            settings=settings("single_elimination", 8)))
        for i in range(4):
            team = f"t{i}"
            await store.execute(tid, cmd.RegisterTeam(at=OPENS + 1, team_id=team, name=team,
                                                      player=f"{team}a", partner=f"{team}b"))
            await store.execute(tid, cmd.ConfirmTeam(at=OPENS + 2, team_id=team,
                                                     player=f"{team}b"))
            for p in "ab":
                await store.execute(tid, cmd.CheckIn(at=STARTS - MINUTE, player=f"{team}{p}"))
        state, _ = await store.execute(tid, cmd.Start(at=STARTS))
        while state.status == "running":
            open_match = next(m for m in state.matches.values() if m.outcome is None)
            state, _ = await store.execute(tid, cmd.RecordResult(
                at=STARTS + MINUTE, match_id=open_match.pairing.match_id,
                outcome=rng.choice(("home", "away")), scores=(500, 400)))

        listed = spades("tournament", "list", "--status", "finished", DATABASE_URL=url)
        assert listed.returncode == 0, listed.stderr
        assert tid in listed.stdout and "single_elimination" in listed.stdout
        shown = spades("tournament", "show", tid, DATABASE_URL=url)
        assert shown.returncode == 0, shown.stderr
        assert f"champion {state.champion}" in shown.stdout and "W2-1" in shown.stdout
        # A knockout's standings: how far each team went, not Swiss tie-breaks.
        assert "W2-1     Final: " in shown.stdout and "buchholz" not in shown.stdout
        assert "rank team  reached, out, points, diff, bags, scored, seed" in shown.stdout
        assert f"{state.champion}  Final, in, " in shown.stdout
        replayed = spades("tournament", "replay", tid, DATABASE_URL=url)
        assert replayed.returncode == 0, replayed.stderr
        assert "TournamentFinished" in replayed.stdout
        assert "projections equal the stream's fold" in replayed.stdout

        await pool.execute("UPDATE tournament_teams SET name = 'renamed' WHERE team_id = 't0'")
        stale = spades("tournament", "replay", tid, DATABASE_URL=url)
        assert stale.returncode == 2 and "tournament_teams" in stale.stdout
        missing = spades("tournament", "show", "nope", DATABASE_URL=url)
        assert missing.returncode == 1 and "not a tournament id" in missing.stderr
    finally:
        await pool.close()


@contextlib.contextmanager
def dev_running_in(folder: Path, database_url: str, nats_url: str) -> Iterator[None]:
    """What a running `spades dev` leaves for the commands beside it, made by its own
    functions: the folder's lock held, and its servers announced."""
    lock = dev_cli.hold_lock(folder)
    devdata.announce(folder, database_url, nats_url)
    try:
        yield
    finally:
        devdata.withdraw(folder)
        os.close(lock)


async def test_the_commands_beside_spades_dev_find_its_database(
        make_database: Callable[[], Awaitable[str]], nats_url: str, tmp_path: Path) -> None:
    url = await make_database()
    pool = await create_pool(url, "tournaments")
    store = TournamentStore(pool, EventStore(pool, registry()))
    tid = str(uuid.uuid4())
    try:
        await store.execute(tid, cmd.CreateTournament(
            at=OPENS, tournament_id=tid, organizer="org",
            settings=settings("single_elimination", 8)))
        beside = {"SPADES_DATA_DIR": str(tmp_path)}
        with dev_running_in(tmp_path, url, nats_url):
            for args, shows in ((("list",), tid), (("show", tid), "Friday cup"),
                                (("replay", tid), "projections equal the stream's fold")):
                done = spades("tournament", *args, unset=("DATABASE_URL",), **beside)
                assert done.returncode == 0, (args, done.stderr)
                assert shows in done.stdout, args
        alone = spades("tournament", "list", unset=("DATABASE_URL",), **beside)
        assert alone.returncode == 1
        assert alone.stderr == ("spades: setting DATABASE_URL is required (or run this "
                                "beside `spades dev`, which it then finds by itself)\n")
    finally:
        await pool.close()
