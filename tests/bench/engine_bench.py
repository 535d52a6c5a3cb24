"""Engine speed on one core: full random hands through decide and evolve,
legal-move queries, and ``spades record verify`` over a corpus of records.

Figures are printed, never asserted.
"""

from __future__ import annotations

import io
import random
import sys
import time

import msgspec

from engine.cards import CODES, ids
from engine.decide import step
from engine.play import legal_cards
from engine.presets import PRESETS
from engine.records import verify_lines
from engine.state import GameState
from schemas import commands as cmd


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
    """The engine alone: pre-chosen commands of random hands through ``step``."""
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
    t0 = time.perf_counter()
    for _ in range(rounds):
        for cmds in hands:
            s = start
            for c in cmds:
                s = step(s, c)[0]
    dt = (time.perf_counter() - t0) / (rounds * count)
    print(f"engine: a hand through decide+evolve    {1 / dt:10.0f} hands/s  "
          f"{dt * 1e6:8.1f} us/hand  (commands chosen beforehand)")


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


def bench_records(count: int = 2500) -> None:
    rng = random.Random(11)
    recs = [_record(rng, i) for i in range(count)]
    data = b"".join(msgspec.json.encode(r) + b"\n" for r in recs)
    t0 = time.perf_counter()
    out = io.BytesIO()
    out.writelines(verify_lines(data.splitlines()))
    dt = time.perf_counter() - t0
    print(f"records: verify {count} hand records   {dt:10.3f} s  ({count / dt:.0f} records/s)")


def _record(rng: random.Random, i: int) -> dict:
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
        card = CODES[rng.choice(ids(legal_cards(s, seat)))]
        plays.append(card)
        s = step(s, cmd.PlayCard(seat=seat, card=card))[0]
    return {"id": f"r{i}", "rules": "classic", "dealer": dealer, "hands": hands, "bids": bids,
            "plays": plays}


def main() -> None:
    bench_hands()
    bench_engine_only()
    bench_legal()
    bench_records()
    sys.stdout.flush()


if __name__ == "__main__":
    main()
