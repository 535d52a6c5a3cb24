"""`spades fairplay scan FILE | list | show CASE | decide CASE`: the fair-play detector over
exported game records, and the review queue of a deployment (docs/fairplay.md).

An operator studies a deployment's games away from it: `spades record export` writes
records that say who played, and the scan prints one JSON line per pair it judged.
A line it cannot judge is named on stderr, one JSON line each (its number, the
record's id, the code and field), and the rest are still judged.

`list`, `show` and `decide` work on the deployment's database, as the ratings service
does (the same ``FairPlay`` object, with the ratings service's settings): a decision
made here is the one ``POST /v1/admin/fairplay/{case}/decision`` makes, recorded with
``by`` "cli:<user>". A case that does not exist, or was decided already, is one line
on stderr and exit 1.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

import msgspec

if TYPE_CHECKING:
    from services.platform.settings import Settings


def add_parser(sub: argparse._SubParsersAction) -> None:
    """`fairplay` and its commands, under ``sub`` (the detector is imported when one
    runs, so `spades --help` stays quick)."""
    p = sub.add_parser("fairplay", help="fair play in ranked: scan records for partners who "
                                        "share hands and accounts that trade wins")
    p.set_defaults(func=run)
    fsub = p.add_subparsers(dest="fairplay_command", required=True)
    scan_p = fsub.add_parser("scan", help="judge every pair of the games in JSON Lines "
                                          "game records (with players)")
    scan_p.add_argument("file", help="a JSON Lines file, or - for standard input")
    scan_p.add_argument("--deals", type=int, help="sampled deals per search (more: slower "
                                                  "and surer; default 12)")
    list_p = fsub.add_parser("list", help="the review queue: open cases first, highest "
                                          "score first, then the decided")
    list_p.add_argument("--status", choices=("open", "cleared", "upheld"))
    list_p.add_argument("--limit", type=int, default=50)
    fsub.add_parser("show", help="one case as JSON: its games, the decisions that weigh "
                                 "most, the scores, what happened to it").add_argument("case")
    decide_p = fsub.add_parser("decide", help="clear a case, or uphold it: its games' "
                                              "rating changes voided, its accounts barred "
                                              "from ranked")
    decide_p.add_argument("case")
    decide_p.add_argument("decision", choices=("cleared", "upheld"))
    decide_p.add_argument("--note", default="", help="why, in a few words")
    decide_p.add_argument("--bar-days", type=float, help="how long an upheld case bars its "
                                                         "accounts (the service's setting "
                                                         "by default)")


class FairPlayCliError(Exception):
    """One line for the operator."""


def run(args: argparse.Namespace) -> int:
    if args.fairplay_command == "scan":
        return scan_file(args.file, args.deals)
    import asyncio

    return asyncio.run(_queue(args))


async def _queue(args: argparse.Namespace) -> int:
    import getpass

    import structlog

    from schemas import fairplay as api
    from services import catalog, devdata
    from services.platform import db
    from services.platform.busclient import Refused
    from services.platform.settings import load
    from services.ratings.fairplay.cases import FairPlay
    from services.ratings.service import RatingsSettings

    # What the work logs (a rebuild's progress) goes to standard error: standard output
    # is the answer alone, for a script to read.
    structlog.configure(logger_factory=structlog.PrintLoggerFactory(file=sys.stderr))
    # The ratings service's settings give the formula and fair play's own. NATS is only
    # told of a bar (``_tell_bars``), so its address need not be set.
    env = devdata.environ()
    settings = load(catalog.manifest("ratings").settings, {"NATS_URL": "", **env})
    assert isinstance(settings, RatingsSettings)
    pool = await db.create_pool(devdata.database_url(), "ratings", min_size=1, max_size=2)
    fair = FairPlay(pool, settings.system, settings.fairplay_bar_days,
                    settings.fairplay_recent_games, settings.fairplay_league_games,
                    barred_now=lambda players: _tell_bars(settings, players))
    enc = msgspec.json.Encoder()
    try:
        if args.fairplay_command == "list":
            for c in (await fair.cases(api.ListCases(status=args.status,
                                                     limit=args.limit))).cases:
                print(f"{c.case_id}\t{c.status}\t{c.relation}\t{c.score:.2f}\t"
                      f"{' '.join(c.players)}\t{c.games} game(s)\t{c.why}")
            return 0
        if args.fairplay_command == "show":
            detail = await fair.case(api.GetCase(case_id=args.case))
        else:
            detail = await fair.decide(api.Decide(
                case_id=args.case, decision=args.decision, note=args.note,
                bar_days=args.bar_days, by=f"cli:{getpass.getuser()}"))
        sys.stdout.buffer.write(enc.encode(detail) + b"\n")
        return 0
    except Refused as exc:
        raise FairPlayCliError(f"{exc.args[0]}: {exc.args[1]}") from None
    except msgspec.ValidationError as exc:
        raise FairPlayCliError(f"bad_request: {exc}") from None
    finally:
        await pool.close()


async def _tell_bars(settings: Settings, players: list[str]) -> None:
    """Tell the matchmaker of a bar now, as the ratings service does, when the bus is
    known and answers; else say when the queue will notice it by itself."""
    from schemas.fairplay import BarsBegan
    from schemas.subjects import Names
    from services.platform.busclient import reach_once

    try:
        if not settings.nats_url:
            raise OSError("NATS_URL is not set")
        client = await reach_once(settings.nats_url, "spades-fairplay")
        try:
            await client.publish(Names(settings.nats_prefix).ranked_barred, BarsBegan(players))
            await client.flush()
        finally:
            await client.close()
    except Exception as exc:
        print(f"spades: the bus was not told of the bar ({exc}): its players' queued "
              "tickets leave the queue at the matchmaker's next recheck (within the "
              "lobby's SPADES_QUEUE_BAR_RECHECK_SECONDS)", file=sys.stderr)


def scan_file(path: str, deals: int | None = None) -> int:
    """Verdicts on stdout, refused lines on stderr; 0 once every line was judged or
    refused, 1 when the file cannot be read."""
    from engine.fairplay.evidence import DEALS
    from engine.fairplay.scan import scan

    try:
        src = sys.stdin.buffer if path == "-" else open(path, "rb")  # noqa: SIM115
    except OSError as e:
        print(f"spades: cannot read {path}: {e.strerror}", file=sys.stderr)
        return 1
    try:
        verdicts, refused = scan(src, deals or DEALS)
    finally:
        if src is not sys.stdin.buffer:
            src.close()
    enc = msgspec.json.Encoder()
    out = sys.stdout.buffer
    for v in verdicts:
        out.write(enc.encode(v.as_json()) + b"\n")
    out.flush()
    for r in refused:
        sys.stderr.buffer.write(enc.encode(r.as_json()) + b"\n")
    sys.stderr.flush()
    return 0
