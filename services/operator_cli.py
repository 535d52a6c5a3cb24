"""`spades record | replay | events`: operators' commands over game logs and records.

Each failure is one line on stderr and exit status 1; `replay` exits 2 when a
log does not verify, so scripts can tell a broken game from a broken command.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from engine.records import verify_file
from schemas import events as ev
from services import devdata, replay
from services.platform.settings import SettingsError


class OperatorError(Exception):
    """One line for the operator."""


def run(args: argparse.Namespace) -> int:
    try:
        return _dispatch(args)
    except (OperatorError, SettingsError, replay.LogError, OSError) as exc:
        print(f"spades: {exc}", file=sys.stderr)
        return 1


def _dispatch(args: argparse.Namespace) -> int:
    if args.command == "record" and args.record_command == "verify":
        return verify_file(args.file)
    if args.command == "record":
        events = _stored(args.game_id)
        replay.write_records(replay.hand_records(events, args.game_id))
        return 0
    if args.command == "events":
        events = _stored(args.game_id)
        out = sys.stdout.buffer
        for version, e in enumerate(events, 1):
            out.write(replay.encode_log_line(version, e))
        out.flush()
        return 0
    if args.verify_all:
        import asyncio  # only the commands that read the event store run a loop

        return asyncio.run(_verify_all())
    names: list[str | None] = []
    if args.file:
        with open(args.file, "rb") as f:
            events = replay.read_log(f)
    elif args.game_id:
        events = _stored(args.game_id)
        names = _names(args.game_id)
    else:
        raise OperatorError("replay needs a GAME_ID or --file LOG.jsonl")
    if args.at is not None and not 0 <= args.at <= len(events):
        raise OperatorError(f"--at {args.at} is outside the log (0 to {len(events)})")
    ok = replay.replay_report(events, sys.stdout, at=args.at, seat=args.seat,
                              as_json=args.json, names=names)
    return 0 if ok else 2


def _stored(game_id: str) -> Sequence[ev.Event]:
    import asyncio

    return asyncio.run(_read_stored(game_id))


def _names(game_id: str) -> list[str | None]:
    import asyncio

    return asyncio.run(_table_names(game_id))


async def _read_stored(game_id: str) -> list[ev.Event]:
    from services.game import logs

    events = await logs.read_game(_game_databases(), game_id)
    if not events:
        raise OperatorError(f"no game {game_id!r} in the event store")
    return events


def _game_databases() -> list[str]:
    """The game service's databases, as its workers spread games over them."""
    from services.game.settings import SHARD_DATABASE_URLS, game_databases

    return game_databases(devdata.database_url(),
                          devdata.environ().get(SHARD_DATABASE_URLS, ""))


async def _table_names(game_id: str) -> list[str | None]:
    """The names seated at the game's table, read through the lobby's own store; none
    where the lobby's tables live elsewhere (the game's database alone)."""
    import asyncpg

    from services.lobby.matches import store
    from services.platform.db import create_pool

    pool = await create_pool(devdata.database_url(), "lobby", min_size=1, max_size=1)
    try:
        table = await store.table_of_game(pool, game_id)
    except asyncpg.PostgresError:
        return []
    finally:
        await pool.close()
    return [s.name for s in table.seats] if table is not None else []


async def _verify_all() -> int:
    from services.game import logs

    total = bad = 0
    async for game_id, events in logs.every_game(_game_databases()):
        total += 1
        divergence = replay.verify(events)
        if divergence is not None:
            bad += 1
            print(f"\n{game_id}: {replay.describe_divergence(divergence, len(events))}")
        print(f"\rverified {total} game(s), {bad} diverged", end="", file=sys.stderr)
    print(file=sys.stderr)
    print(f"{total} game(s): {total - bad} verified, {bad} diverged")
    return 0 if bad == 0 else 2
