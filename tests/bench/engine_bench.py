"""Engine speed on one core: full random hands through decide and evolve,
legal-move queries, ``spades record verify`` over a corpus of records (beside
OpenSpiel's C++ game replaying the same records, when it is installed), and
the CLI's start-up. Each figure is printed next to its target (issue 12).

Figures are printed, never asserted. On a shared machine they move with the
load: each is the best of a few rounds of CPU time where that makes sense.
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
VERIFY_TARGET_RATIO = 1.5  # at most this many times OpenSpiel's time, in the same run


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


def bench_engine_only(count: int = 300, rounds: int = 10) -> None:
    """The engine alone: pre-chosen commands of random hands through ``step``; the best
    round's CPU time, so that other work on the machine weighs less."""
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
    best = float("inf")
    for _ in range(rounds):
        t0 = time.process_time()
        for cmds in hands:
            s = start
            for c in cmds:
                s = step(s, c)[0]
        best = min(best, (time.process_time() - t0) / count)
    print(f"engine: a hand through decide+evolve    {1 / best:10.0f} hands/s  "
          f"{best * 1e6:8.1f} us/hand  (target {HAND_TARGET_US} us; commands chosen "
          f"beforehand, best of {rounds} rounds)")


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


def bench_records(count: int = 2500, rounds: int = 3) -> None:
    """``spades record verify``'s work per record, and OpenSpiel's on the same records."""
    rng = random.Random(11)
    recs = [_record(rng, i) for i in range(count)]
    lines = [msgspec.json.encode(r) for r in recs]
    ours = _best(lambda: io.BytesIO().writelines(verify_lines(lines)), rounds)
    print(f"records: verify {count} hand records   {ours:10.3f} s  ({count / ours:.0f} "
          f"records/s, {ours / count * 1e6:.0f} us/record)")
    if not openspiel_side.available():
        print("records: OpenSpiel is not installed (pip install open_spiel): no side-by-side")
        return
    assert all(openspiel_side.verify(lines[:20]))  # it accepts these records at all
    theirs = _best(lambda: openspiel_side.verify(lines), rounds)
    print(f"records: OpenSpiel replays the same     {theirs:10.3f} s  ({count / theirs:.0f} "
          f"records/s)  ours/OpenSpiel {ours / theirs:.2f}x (target <= {VERIFY_TARGET_RATIO}x)")


def _best(work, rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        t0 = time.process_time()
        work()
        best = min(best, time.process_time() - t0)
    return best


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
