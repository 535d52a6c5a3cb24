"""Each card decision's two grades (real hand, plausible hand) over a league series, and
how the rules that read them separate peeking pairs from honest ones (docs/fairplay.md).

``--out FILE`` plays one series and writes a line per match: the grades of its weighed
decisions (``engine.fairplay.evidence.grades``, as the service weighs a game). The
series: ``peek``, a pair peeking on ``--peek`` of its card decisions (seats 0 and 2,
budget-16 experts) against a new honest pair each match (an expert and, in turn, an
expert or a basic bot); ``strongest``, two fixed partnerships of budget-32 experts;
``fixedmix``, a fixed pair of basic bots against a fixed budget-16 expert and beginner.
``--report FILE...`` reads such files and prints, per team, at each checkpoint, the
share and score of each rule: ``sure`` (the one the detector uses: the card surely the
best with one hand and surely beaten with the other), ``beaten`` (surely beaten with
one hand only, whatever the other said) and ``best`` (the one before: the card the best
with one hand only), the hand at which each score first reached the threshold, judged
after every match, and the highest score it reached. Without either, a short series is
played and reported. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from random import Random
from zlib import crc32

from engine.cards import card_id
from engine.fairplay.evidence import AHEAD, NOT, grades, tells
from engine.fairplay.pairs import PARTNERS_Z
from engine.presets import resolve
from engine.records import plays_of
from tests.bench.fairplay_league import Account, play_match

CHECKPOINTS = (200, 500, 1000)
RULES: dict[str, Callable[[int, int], int]] = {
    "sure": tells, "beaten": lambda r, p: int(p == NOT) - int(r == NOT),
    "best": lambda r, p: int(r >= AHEAD) - int(p >= AHEAD)}


def _seats(mode: str, n: int, peek: float) -> tuple[Account, ...]:
    if mode == "strongest":
        return (Account("a", budget=32), Account("o1", budget=32), Account("b", budget=32),
                Account("o2", budget=32))
    if mode == "fixedmix":
        return (Account("a", level="basic"), Account("o1", budget=16),
                Account("b", level="basic"), Account("o2", level="beginner"))
    return (Account("peek.a", peek=peek), Account(f"o1.{n}"), Account("peek.b", peek=peek),
            Account(f"o2.{n}", level=("expert", "basic")[n % 2]))


def play(mode: str, seed: int, peek: float, hands: int, out: Path) -> None:
    rng = Random(seed)
    played, n = 0, 0
    with out.open("a") as f:
        while played < hands:
            seats = _seats(mode, n, peek)
            rec = play_match(resolve("quick"), seats, rng, f"s{seed}-{n}", n)
            s = crc32(rec["game_id"].encode())
            d, seen = [], set()
            for i, (k, before, seat, card, _) in enumerate(plays_of(rec)):
                seen.add(k)
                g = grades(before, seat, card_id(card), s * 7919 + i)
                if g is not None:
                    d.append([k, seat, g[0], g[1]])
            played += len(seen)
            f.write(json.dumps({"n": n, "hands": len(seen),
                                "kind": [a.level for a in seats], "d": d}) + "\n")
            f.flush()
            n += 1


def _z(a: int, b: int) -> float:
    return (a - b - 1) / math.sqrt(a + b) if a + b else 0.0


def report(path: Path) -> None:
    counts = {(t, r): [0, 0] for t in (0, 1) for r in RULES}
    first: dict[tuple[int, str], int] = {}
    top: dict[tuple[int, str], float] = {}
    played, marks = 0, list(CHECKPOINTS)
    print(f"{path}:")
    for line in path.open():
        m = json.loads(line)
        played += m["hands"]
        for _, seat, real, plausible in m["d"]:
            for r, rule in RULES.items():
                told = rule(real, plausible)
                if told:
                    counts[(seat & 1, r)][told < 0] += 1
        for key, (a, b) in counts.items():
            top[key] = max(top.get(key, 0.0), _z(a, b))
            if _z(a, b) >= PARTNERS_Z:
                first.setdefault(key, played)
        while marks and played >= marks[0]:
            marks.pop(0)
            _line(played, counts)
    if marks:
        _line(played, counts)
    print("  first flagged (hands), highest score: " + "; ".join(
        f"team {t} {r} {first.get((t, r), '-')}, {top[(t, r)]:.2f}"
        for t in (0, 1) for r in RULES))


def _line(played: int, counts: dict[tuple[int, str], list[int]]) -> None:
    for t in (0, 1):
        print(f"  {played:5} hands, team {t}: " + "; ".join(
            f"{r} {a / max(1, a + b):.1%} of {a + b}, score {_z(a, b):.2f}"
            for (team, r), (a, b) in counts.items() if team == t), flush=True)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="fairplay_grades_bench",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--mode", choices=("peek", "strongest", "fixedmix"), default="peek")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--peek", type=float, default=0.25)
    ap.add_argument("--hands", type=int, default=40)
    ap.add_argument("--out", type=Path, help="play one series into this file")
    ap.add_argument("--report", type=Path, nargs="+", help="report these series")
    args, _ = ap.parse_known_args(sys.argv[1:] if argv is None else argv)
    if args.out:
        play(args.mode, args.seed, args.peek, args.hands, args.out)
    for p in args.report or []:
        report(p)
    if not args.out and not args.report:
        with tempfile.TemporaryDirectory() as d:
            out = Path(d) / "series.jsonl"
            play(args.mode, args.seed, args.peek, args.hands, out)
            report(out)
