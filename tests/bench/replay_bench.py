"""Replay and verification speed: one 13-hand game, and many games in a row.

Printed, not asserted. The games are bot games with clocks running out now and
then, so the logs hold time-bank and automatic moves like real ones.
"""

from __future__ import annotations

import time

from engine import bots
from engine.bots import basic
from engine.cards import CODES
from engine.decide import step
from engine.presets import resolve
from engine.replay import verify
from engine.state import GameState
from schemas import commands as cmd
from schemas import events as ev


def bot_game(seed: int, hands: int = 13) -> list[ev.Event]:
    rules = resolve({"preset": "house", "target": None, "max_hands": hands})
    s, log = step(GameState(), cmd.StartGame(rules=rules, seed=f"{seed:064x}", at=0))
    t = 0
    while s.phase != "over":
        t += 250
        seat = s.waiting.bit_length() - 1
        if s.phase == "bidding":
            c: cmd.Command = cmd.PlaceBid(seat=seat, bid=basic.choose_bid(s, seat), at=t)
        elif t % 2750 == 0:
            c = bots.timeout_command(s, seat, at=max(t, s.deadlines[seat]))
        else:
            c = cmd.PlayCard(seat=seat, card=CODES[basic.choose_card(s, seat)], at=t)
        s, out = step(s, c)
        log += out
    return log


def main() -> None:
    game = bot_game(1)
    runs = 20
    t0 = time.perf_counter()
    for _ in range(runs):
        assert verify(game) is None
    one = (time.perf_counter() - t0) / runs
    print(f"replay: verify one 13-hand game ({len(game)} events)  {one * 1000:8.2f} ms")
    games = [bot_game(seed, hands=4) for seed in range(2, 202)]
    t0 = time.perf_counter()
    done = 0
    while done < 1000:
        for g in games:
            assert verify(g) is None
        done += len(games)
    dt = time.perf_counter() - t0
    events = sum(len(g) for g in games) * (done // len(games))
    print(f"replay: verify {done} 4-hand games in memory        {done / dt:8.0f} games/s "
          f"({events / dt:.0f} events/s)")


if __name__ == "__main__":
    main()
