"""`spades dev | serve SERVICE | migrate | resync | ratings rebuild | settings | backup |
restore`.

Every failure an operator can cause (a port in use, a server that does not
answer, a bad setting, a second `spades dev`) ends in one line on stderr and a
non-zero exit, never a traceback.

The clients of NATS and Postgres and the event loop are imported by the
commands that connect, not here: `spades --help` and `spades record verify`
start without them. `spades dev` is ``dev_cli``'s, the stores' upkeep (migrate,
resync, ratings rebuild) ``upkeep_cli``'s, game records and replays ``operator_cli``'s.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from services import backup_cli, catalog, devdata, fairplay_cli
from services.dev_cli import dev
from services.platform import servers, version
from services.platform.settings import SettingsError, StartupError, describe, load
from services.tournaments import cli as tournament_cli
from services.upkeep_cli import CliError, migrate_cmd, ratings_rebuild_cmd, resync_cmd

Handler = Callable[[argparse.Namespace], int]


class _Version(argparse.Action):
    """`spades --version`: the package's metadata is read only when asked."""

    def __init__(self, option_strings: list[str], dest: str, **_: object) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        print(f"spades {version()}")
        parser.exit()


def parser() -> argparse.ArgumentParser:
    """Every command, each with its handler (``func``): the exit status it returns."""
    top = argparse.ArgumentParser(prog="spades", description="Spades platform")
    top.add_argument("--version", action=_Version)
    sub = top.add_subparsers(dest="command", required=True)

    def command(name: str, handler: Handler, help: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help)
        p.set_defaults(func=handler)
        return p

    command("dev", lambda _: dev(),
            help="start Postgres, NATS and the four services on this machine")
    command("serve", lambda a: serve_one(a.service),
            help="run one service (for deployment)").add_argument(
        "service", choices=catalog.SERVICES)
    command("migrate", lambda _: migrate_cmd(),
            help="apply every service's migrations to DATABASE_URL "
                 "(or the running `spades dev`'s database)")
    resync = command("resync", lambda a: resync_cmd(a.from_position, a.stream, a.check),
                     help="bring JetStream in line with the database: remove the events "
                          "the database does not hold (after a restore or a failover) and "
                          "publish stored game events again (after JetStream lost them)")
    resync.add_argument("--check", action="store_true",
                        help="only name the games whose events JetStream holds and the "
                             "database does not")
    resync.add_argument("--from-position", type=int, default=0,
                        help="first global position to republish (default: all)")
    resync.add_argument("--stream", help="only this game's stream")
    ratings_p = sub.add_parser("ratings", help="the ratings service's tables")
    ratings_sub = ratings_p.add_subparsers(dest="ratings_command", required=True)
    ratings_sub.add_parser("rebuild", help="forget every rating and rate every stored "
                                           "GameEnded again, in order (after a formula change)"
                           ).set_defaults(func=lambda _: ratings_rebuild_cmd())
    command("settings", lambda a: settings_cmd(a.service),
            help="list a service's settings: default, value in "
                 "force (from the environment), meaning").add_argument(
        "service", choices=catalog.SERVICES)
    _operator_commands(command)
    _backup_commands(command)
    for role, what in (("operator", "give a registered account the operator role, or take "
                                    "it away"),
                       ("organizer", "let a registered account organize tournaments, "
                                     "or stop it")):
        role_p = command(role, lambda a: role_cmd(a.command, a.action == "grant", a.name),
                         help=what)
        role_p.add_argument("action", choices=("grant", "revoke"))
        role_p.add_argument("name", help="a registered account's name")
    fairplay_cli.add_parser(sub)
    tournament_cli.add_parser(sub).set_defaults(
        func=lambda a: tournament_cli.run(a, devdata.database_url()))
    return top


def _operator_commands(command: Callable[..., argparse.ArgumentParser]) -> None:
    """`record`, `replay` and `events`: run by ``operator_cli``, imported when one runs."""

    def run(args: argparse.Namespace) -> int:
        from services import operator_cli

        return operator_cli.run(args)

    record = command("record", run,
                     help="game records: check them, or export a game's hands")
    record_sub = record.add_subparsers(dest="record_command", required=True)
    verify_p = record_sub.add_parser("verify", help="judge JSON Lines game records")
    verify_p.add_argument("file", help="a JSON Lines file, or - for standard input")
    record_export = record_sub.add_parser("export", help="a stored game's hands as records")
    record_export.add_argument("game_id")
    replay_p = command("replay", run, help="replay and verify a game's event log")
    replay_p.add_argument("game_id", nargs="?", help="a stored game, read from DATABASE_URL "
                          "or the database of the `spades dev` running beside it")
    replay_p.add_argument("--file", help="an exported log (JSON Lines); no database needed")
    replay_p.add_argument("--at", type=int, help="stop after N events (event N is version N; "
                                                 "0: before the first) and show the board")
    replay_p.add_argument("--seat", type=int, choices=range(4), help="show what seat S saw")
    replay_p.add_argument("--json", action="store_true",
                          help="machine-readable: the timeline, the state and the verdict")
    replay_p.add_argument("--verify-all", action="store_true",
                          help="verify every stored game and summarize")
    events_p = command("events", run, help="a stored game's event log")
    events_sub = events_p.add_subparsers(dest="events_command", required=True)
    events_export = events_sub.add_parser("export", help="write the log as JSON Lines")
    events_export.add_argument("game_id")


def _backup_commands(command: Callable[..., argparse.ArgumentParser]) -> None:
    """`backup [--full] | backup verify | backup wal` and `restore`: ``backup_cli``'s."""
    backup = command("backup", lambda a: backup_cli.backup_cmd(a.dir, a.full),
                     help="take a base backup of the database's server into "
                          "SPADES_BACKUP_DIR (incremental on the last one)")
    backup.add_argument("--full", action="store_true", help="a full backup, not incremental")
    backup.add_argument("--dir", help="the backup folder (default SPADES_BACKUP_DIR)")
    backup_sub = backup.add_subparsers(dest="backup_command")
    backup_sub.add_parser("verify", help="check every backup (pg_verifybackup) and say "
                                         "what moments they cover"
                          ).set_defaults(func=lambda a: backup_cli.verify_cmd(a.dir))
    backup_sub.add_parser("wal", help="stream the WAL archive until stopped "
                                      "(spades dev does it itself)"
                          ).set_defaults(func=lambda a: backup_cli.wal_cmd(a.dir))
    restore = command("restore", lambda a: backup_cli.restore_cmd(a.dir, a.to, a.data_dir),
                      help="rebuild the database as it was at a moment, in a new data folder")
    restore.add_argument("--to", required=True, help="the moment, ISO 8601 (UTC unless it "
                                                      "says otherwise)")
    restore.add_argument("--data-dir", required=True, help="a new folder; start the "
                         "platform on it with SPADES_DATA_DIR")
    restore.add_argument("--dir", help="the backup folder (default SPADES_BACKUP_DIR)")


def main(argv: list[str] | None = None) -> None:
    args = parser().parse_args(argv)
    try:
        code = args.func(args)
    except _one_line_errors() as exc:  # evaluated only once something was raised
        print(f"spades: {exc}", file=sys.stderr)
        code = 1
    except KeyboardInterrupt:
        code = 130
    sys.exit(code)


def _one_line_errors() -> tuple[type[Exception], ...]:
    """The failures an operator causes, each told in one line."""
    from services.platform import connection, db, migrations

    return (CliError, SettingsError, StartupError, servers.ServerError, db.DatabaseUnavailable,
            connection.BusUnavailable, migrations.MigrationError, tournament_cli.TournamentCliError,
            fairplay_cli.FairPlayCliError)


def settings_cmd(service: str) -> int:
    """A service's settings as tab-separated columns under a header: the environment name,
    the default, the value in force (from this environment) and what it means."""
    print("setting\tdefault\tin force\tmeaning")
    for row in describe(catalog.manifest(service).settings):
        print("\t".join(row))
    return 0


def serve_one(name: str) -> int:
    import asyncio  # here, not above: `spades --help` starts without an event loop

    from services.platform import runtime

    manifest = catalog.manifest(name)
    settings = load(manifest.settings)
    asyncio.run(runtime.run(name, settings, manifest.setup, manifest.migration_set))
    return 0


def role_cmd(role: str, grant: bool, name: str) -> int:
    import asyncio

    from services.lobby.accounts import roles
    from services.lobby.base.errors import LobbyError

    url = devdata.database_url()
    change = roles.set_role if role == "operator" else roles.set_organizer
    try:
        print(asyncio.run(change(url, name, grant)))
    except LobbyError as exc:
        raise CliError(exc.message) from None
    return 0



if __name__ == "__main__":
    main()
