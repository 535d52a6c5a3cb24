"""`spades migrate`, `spades settings` and what the commands' help says."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import asyncpg
import pytest

from services import catalog
from services.platform import dbadmin
from services.platform.settings import REQUIRED, describe

ROOT = Path(__file__).resolve().parents[2]


def spades(*args: str, unset: tuple[str, ...] = (), **env: str
           ) -> subprocess.CompletedProcess[str]:
    """Run `spades ARGS` with this environment, less ``unset``, plus ``env``."""
    kept = {k: v for k, v in os.environ.items() if k not in unset}
    return subprocess.run([sys.executable, "-m", "services.cli", *args], cwd=ROOT,
                          env={**kept, "PYTHONPATH": str(ROOT), **env},
                          capture_output=True, text=True, timeout=60)


async def test_migrate_applies_every_schema_once(database_url: str) -> None:
    admin = database_url.rsplit("/", 1)[0] + "/postgres"
    name = f"spades_empty_{uuid.uuid4().hex[:8]}"
    url = await dbadmin.ensure_database(admin, name)
    try:
        first = spades("migrate", DATABASE_URL=url)
        assert first.returncode == 0, first.stderr
        assert "lobby:" in first.stdout and "game:eventstore/0001_eventstore.sql" in first.stdout
        again = spades("migrate", DATABASE_URL=url)
        assert again.stdout.strip() == "applied 0 migration(s)"
        conn = await asyncpg.connect(url)
        schemas = {r[0] for r in await conn.fetch("SELECT nspname FROM pg_namespace")}
        await conn.close()
        assert {"lobby", "game", "ratings", "tournaments"} <= schemas
    finally:
        await dbadmin.drop(admin, name)


def test_migrate_without_a_database_url_or_a_running_dev_is_one_line(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    done = subprocess.run([sys.executable, "-m", "services.cli", "migrate"], cwd=ROOT,
                          env={**env, "PYTHONPATH": str(ROOT),
                               "SPADES_DATA_DIR": str(tmp_path)},
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stderr == ("spades: setting DATABASE_URL is required (or run this beside "
                           "`spades dev`, which it then finds by itself)\n")


def settings_of(service: str, unset: tuple[str, ...] = (), **env: str
                ) -> dict[str, tuple[str, str, str]]:
    """`spades settings SERVICE`, as name -> (default, in force, meaning)."""
    done = spades("settings", service, unset=unset, **env)
    assert done.returncode == 0, done.stderr
    header, *lines = done.stdout.strip().splitlines()
    assert header.split("\t") == ["setting", "default", "in force", "meaning"]
    rows = [line.split("\t") for line in lines]
    assert all(len(row) == 4 for row in rows), rows
    return {name: (default, in_force, meaning) for name, default, in_force, meaning in rows}


def test_settings_lists_every_setting_with_its_default_and_meaning() -> None:
    rows = settings_of("ratings", unset=("SPADES_K_PROVISIONAL",))
    default, in_force, meaning = rows["SPADES_K_PROVISIONAL"]
    assert meaning.startswith("Elo K") and in_force == default and default != ""
    assert all(meaning for _, _, meaning in rows.values())


def test_settings_show_the_value_the_environment_puts_in_force() -> None:
    rows = settings_of("game", unset=("DATABASE_URL",), SPADES_BOT_THINK_MS="250",
                       SPADES_INBOX_SIZE="0", SPADES_LOG_LEVEL="debug",
                       NATS_URL="nats://game:hunter2@nats-1:4222,nats://game:hunter2@nats-2:4222")
    assert rows["SPADES_BOT_THINK_MS"][:2] == ("800", "250")
    assert "800 by default" in rows["SPADES_BOT_THINK_MS"][2]
    assert rows["SPADES_LOG_LEVEL"][:2] == ("info", "debug")
    assert rows["SPADES_INBOX_SIZE"][0] == "64"
    assert rows["SPADES_INBOX_SIZE"][1].startswith("invalid: Expected `int` >= 1")
    assert rows["DATABASE_URL"][:2] == ("(required)", "(not set)")
    assert rows["NATS_URL"][1] == "nats://game:***@nats-1:4222,nats://game:***@nats-2:4222"


@pytest.mark.parametrize("service", catalog.SERVICES)
def test_each_default_as_printed_reads_back_as_itself(service: str) -> None:
    """A default is printed as the environment spells it: set to that text, it is in force."""
    rows = describe(catalog.manifest(service).settings, {})
    given = {r.name: "" if r.default == '""' else r.default for r in rows
             if r.default != REQUIRED}
    again = {r.name: r.in_force for r in describe(catalog.manifest(service).settings, given)}
    assert {name: again[name] for name in given} == {
        r.name: r.default for r in rows if r.name in given}


def test_settings_never_print_a_secret() -> None:
    rows = settings_of("lobby", SPADES_TOKEN_SECRET="do-not-print-me")
    assert rows["SPADES_TOKEN_SECRET"][1] == "(set, hidden)"


def test_help_and_record_verify_start_without_the_network_clients(tmp_path: Path) -> None:
    """`spades --help` and `spades record verify` connect to nothing, so they import
    neither the Postgres and NATS clients nor an event loop: that is their start-up time
    (the target is under 150 ms; `make bench` prints it)."""
    records = tmp_path / "one.jsonl"
    records.write_text((ROOT / "tests" / "engine" / "data" / "sample-records.jsonl")
                       .read_text().splitlines()[0] + "\n")
    heavy = ("asyncpg", "nats", "asyncio", "structlog", "litestar", "ssl")
    probe = ("import atexit, sys\n"
             f"atexit.register(lambda: print('loaded', [m for m in {heavy!r} if m in sys.modules],"
             " file=sys.stderr))\n"
             "from services.cli import main\nmain()\n")
    for args in (["--help"], ["fairplay", "scan", str(records)],
                 ["record", "verify", str(records)]):
        done = subprocess.run([sys.executable, "-c", probe, *args], cwd=ROOT,
                              env={**os.environ, "PYTHONPATH": str(ROOT)},
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        assert done.stderr.strip().splitlines()[-1] == "loaded []", (args, done.stderr)
    assert '"ok"' in done.stdout


def test_replay_help_says_a_stored_game_is_found_beside_spades_dev_too() -> None:
    done = spades("replay", "--help")
    assert done.returncode == 0, done.stderr
    text = " ".join(done.stdout.split())
    assert "needs DATABASE_URL" not in text
    assert "read from DATABASE_URL or the database of the `spades dev` running beside it" in text


def test_every_command_runs_through_its_own_handler() -> None:
    """Each command a user can type ends at a handler: none falls through to a default."""
    import argparse

    from services import cli

    def leaves(p: argparse.ArgumentParser, path: tuple[str, ...], func: object = None
               ) -> list[tuple[tuple[str, ...], object]]:
        """Each full command and its handler (its own, or the one its parent sets)."""
        func = p.get_default("func") or func
        subs = [a for a in p._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs:
            return [(path, func)]
        return [leaf for name, child in subs[0].choices.items()
                for leaf in leaves(child, (*path, name), func)]

    found = leaves(cli.parser(), ())
    assert {" ".join(path) for path, _ in found} == {
        "dev", "serve", "migrate", "resync", "ratings rebuild", "settings", "record verify",
        "record export", "replay", "events export", "operator", "organizer",
        "tournament list", "tournament show", "tournament replay", "backup verify",
        "backup wal", "restore", "fairplay scan", "fairplay list", "fairplay show",
        "fairplay decide"}
    assert [path for path, func in found if not callable(func)] == []
