"""`spades fairplay scan FILE`: the fair-play detector over exported game records.

An operator studies a deployment's games away from it: `spades record export` writes
records that say who played, and the scan prints one JSON line per pair it judged
(docs/fairplay.md). A line it cannot judge is named on stderr, one JSON line each
(its number, the record's id, the code and field), and the rest are still judged.
"""

from __future__ import annotations

import argparse
import sys

import msgspec


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
                                                  "and surer; default 10)")


def run(args: argparse.Namespace) -> int:
    return scan_file(args.file, args.deals)


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
