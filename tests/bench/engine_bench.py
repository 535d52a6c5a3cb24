"""Engine speed on one core: full random hands through decide and evolve,
legal-move queries, ``spades record verify`` over a corpus of records (beside
OpenSpiel's C++ game replaying the same records, when it is installed), and
the CLI's start-up. Each figure is printed next to its target (issue 12).

Figures are printed, never asserted. On a shared machine they move with the
load: the targets are read against the median CPU time of several rounds.
"""

from __future__ import annotations

import io
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import msgspec

from engine.cards import CODES, ids
from engine.decide import step
from engine.play import legal_cards
from engine.presets import PRESETS
from engine.records import verify_lines
from engine.state import GameState
from schemas import commands as cmd
from tests.bench import openspiel_side

HAND_TARGET_US = 150
START_TARGET_MS = 150
VERIFY_TARGET_RATIO = 1.3  # at most this many times OpenSpiel's time, in the same run
VERIFY_GOAL_RATIO = 1.0


def random_hand(state: GameState, rng: random.Random) -> tuple[GameState, int]:
    """Deal, bid and play one hand choosing uniformly among legal moves; returns steps."""
    deck = list(range(52))
    rng.shuffle(deck)
    dealer = (state.dealer + 1) % 4 if state.hand_no else 0
    hands = tuple(tuple(CODES[c] for c in deck[i::4]) for i in range(4))
    state = step(state, cmd.DealHand(dealer=dealer, hands=hands))[0]
    steps = 1
    while state.phase == "bidding":
        seat = state.waiting.bit_length() - 1
        state = step(state, cmd.PlaceBid(seat=seat, bid=rng.randint(1, 4)))[0]
        steps += 1
    while state.phase == "play":
        seat = state.waiting.bit_length() - 1
        legal = legal_cards(state, seat)
        for _ in range(rng.randrange(legal.bit_count())):
            legal &= legal - 1
        card = (legal & -legal).bit_length() - 1
        state = step(state, cmd.PlayCard(seat=seat, card=CODES[card]))[0]
        steps += 1
    return state, steps


def bench_hands(seconds: float = 3.0) -> None:
    rng = random.Random(7)
    start = step(GameState(), cmd.StartGame(rules=PRESETS["classic"]))[0]
    n = steps = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        _, k = random_hand(start, rng)
        n += 1
        steps += k
    dt = time.perf_counter() - t0
    print(f"engine: full random hands (classic)    {n / dt:10.0f} hands/s  "
          f"{dt / n * 1e6:8.1f} us/hand  {steps / dt:10.0f} steps/s")


def bench_engine_only(count: int = 300, rounds: int = 11) -> None:
    """The engine alone: pre-chosen commands of random hands through ``step``; the median
    (and the best) of ``rounds`` rounds of CPU time, so that other work weighs less."""
    rng = random.Random(5)
    start = step(GameState(), cmd.StartGame(rules=PRESETS["classic"]))[0]
    hands = []
    for i in range(count):
        r = _record(rng, i)
        cmds: list[cmd.Command] = [cmd.DealHand(dealer=r["dealer"], hands=tuple(
            map(tuple, r["hands"])))]
        s = step(start, cmds[0])[0]
        while s.phase == "bidding":
            seat = s.waiting.bit_length() - 1
            cmds.append(cmd.PlaceBid(seat=seat, bid=r["bids"][seat]))
            s = step(s, cmds[-1])[0]
        for card in r["plays"]:
            cmds.append(cmd.PlayCard(seat=s.waiting.bit_length() - 1, card=card))
            s = step(s, cmds[-1])[0]
        hands.append(cmds)

    def all_hands() -> None:
        for cmds in hands:
            s = start
            for c in cmds:
                s = step(s, c)[0]

    times = [_cpu(all_hands) / count for _ in range(rounds)]
    median = statistics.median(times)
    print(f"engine: a hand through decide+evolve    {1 / median:10.0f} hands/s  "
          f"{median * 1e6:8.1f} us/hand  (target {HAND_TARGET_US} us; median CPU of "
          f"{rounds} rounds, best {min(times) * 1e6:.1f} us; commands chosen beforehand)")


def bench_legal(seconds: float = 2.0) -> None:
    rng = random.Random(3)
    start = step(GameState(), cmd.StartGame(rules=PRESETS["house"]))[0]
    states = []
    for _ in range(50):
        deck = [c for c in range(54) if c not in (13, 39)]
        rng.shuffle(deck)
        s = step(start, cmd.DealHand(dealer=0, hands=tuple(
            tuple(CODES[c] for c in deck[i::4]) for i in range(4))))[0]
        for seat in range(4):
            s = step(s, cmd.PlaceBid(seat=seat, bid=3))[0]
        for _ in range(rng.randint(0, 40)):
            seat = s.waiting.bit_length() - 1
            s = step(s, cmd.PlayCard(seat=seat, card=CODES[rng.choice(
                ids(legal_cards(s, seat)))]))[0]
        states.append((s, s.waiting.bit_length() - 1))
    n = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        for s, seat in states:
            legal_cards(s, seat)
        n += len(states)
    dt = time.perf_counter() - t0
    print(f"engine: legal-move queries (house)     {n / dt:10.0f} queries/s")


def bench_records(count: int = 2500, rounds: int = 7) -> None:
    """``spades record verify``'s work per record, and OpenSpiel's on the same records: the
    two take turns round by round, so that both see the same load; medians of CPU time."""
    rng = random.Random(11)
    recs = [_record(rng, i) for i in range(count)]
    lines = [msgspec.json.encode(r) for r in recs]
    side = openspiel_side.available()
    if side:
        assert all(openspiel_side.verify(lines[:20]))  # it accepts these records at all
    ours, theirs = [], []
    for _ in range(rounds):
        ours.append(_cpu(lambda: io.BytesIO().writelines(verify_lines(lines))) / count)
        if side:
            theirs.append(_cpu(lambda: openspiel_side.verify(lines)) / count)
    mine = statistics.median(ours)
    print(f"records: verify {count} hand records   {mine * 1e6:8.1f} us/record  "
          f"({1 / mine:.0f} records/s; median CPU of {rounds} rounds)")
    if not side:
        print("records: OpenSpiel is not installed (pip install open_spiel): no side-by-side")
        return
    other = statistics.median(theirs)
    print(f"records: OpenSpiel replays the same     {other * 1e6:8.1f} us/record  "
          f"ours/OpenSpiel {mine / other:.2f}x (target <= {VERIFY_TARGET_RATIO}x, "
          f"goal {VERIFY_GOAL_RATIO}x)")


def _cpu(work: Callable[[], object]) -> float:
    t0 = time.process_time()
    work()
    return time.process_time() - t0


def bench_cli_start(runs: int = 15) -> None:
    """Start-up of `spades --help` and of `spades record verify` on one record, beside a
    bare interpreter's: the median CPU time of the child process (what a loaded, shared
    machine changes least) and the median wall time, over ``runs`` runs."""
    root = Path(__file__).resolve().parents[2]
    spades = ("import sys; sys.argv[0] = 'spades'; from services.cli import main; main()")
    with tempfile.TemporaryDirectory() as tmp:
        one = Path(tmp) / "one.jsonl"
        one.write_bytes(msgspec.json.encode(_record(random.Random(1), 0)) + b"\n")
        cases = {"python -c pass": ["-c", "pass"],
                 "spades --help": ["-c", spades, "--help"],
                 "spades record verify (1 record)": ["-c", spades, "record", "verify", str(one)]}
        for name, args in cases.items():
            walls, cpus = [], []
            for _ in range(runs):
                t0, c0 = time.perf_counter(), _children_cpu()
                subprocess.run([sys.executable, *args], cwd=root, capture_output=True,
                               check=True)
                walls.append(time.perf_counter() - t0)
                cpus.append(_children_cpu() - c0)
            target = "" if name.startswith("python") else f"  (target < {START_TARGET_MS} ms)"
            print(f"cli: {name:32s} {statistics.median(cpus) * 1e3:6.0f} ms CPU, "
                  f"{statistics.median(walls) * 1e3:.0f} ms wall (medians){target}")


def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def _record(rng: random.Random, i: int) -> dict:
    """A classic hand record of random legal play, with every lead a side suit while the
    leader holds one: OpenSpiel's spades never marks spades broken, so such records are
    legal under both rule sets and the side-by-side replays the same records."""
    start = step(GameState(), cmd.StartGame(rules=PRESETS["classic"]))[0]
    deck = list(range(52))
    rng.shuffle(deck)
    dealer = i % 4
    hands = [[CODES[c] for c in deck[k::4]] for k in range(4)]
    s = step(start, cmd.DealHand(dealer=dealer, hands=tuple(map(tuple, hands))))[0]
    bids = [0] * 4
    while s.phase == "bidding":
        seat = s.waiting.bit_length() - 1
        bids[seat] = rng.randint(1, 4)
        s = step(s, cmd.PlaceBid(seat=seat, bid=bids[seat]))[0]
    plays = []
    while s.phase == "play":
        seat = s.waiting.bit_length() - 1
        legal = legal_cards(s, seat)
        if not s.trick and legal & ~s.deck.trump_mask:
            legal &= ~s.deck.trump_mask
        card = CODES[rng.choice(ids(legal))]
        plays.append(card)
        s = step(s, cmd.PlayCard(seat=seat, card=card))[0]
    return {"id": f"r{i}", "rules": "classic", "dealer": dealer, "hands": hands, "bids": bids,
            "plays": plays}


def main() -> None:
    bench_hands()
    bench_engine_only()
    bench_legal()
    bench_records()
    bench_cli_start()
    sys.stdout.flush()


if __name__ == "__main__":
    main()
