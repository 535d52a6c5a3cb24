"""The same hand records replayed through OpenSpiel's C++ ``spades`` game, for comparison.

OpenSpiel (``pip install open_spiel``) is an optional dependency of the bench only:
the test suite never needs it, and ``available()`` says whether it is installed.
Its game is one hand in which player 0 bids and leads first and chance deals card
``i`` of the deal to player ``i % 4``, so a record is rotated to put the dealer's
left at player 0. Each play is checked against ``legal_actions`` before it is
applied (a verifier must refuse a revoke), and the hand's returns are read at the end.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

_SUITS, _RANKS = "CDHS", "23456789TJQKA"  # OpenSpiel's order: clubs first
_BID0 = 52  # bid actions are 52 (nil) to 65 (13)
_decoder = msgspec.json.Decoder()


def available() -> bool:
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        return False
    return True


def action(code: str) -> int:
    return _SUITS.index(code[1]) * 13 + _RANKS.index(code[0])


def verify(lines: Sequence[bytes]) -> list[bool]:
    """Replay each JSON-lines hand record; True where OpenSpiel accepts every move."""
    import pyspiel

    game = pyspiel.load_game("spades")
    return [_replay(game, _decoder.decode(line)) for line in lines]


def _replay(game: Any, rec: dict[str, Any]) -> bool:
    state = game.new_initial_state()
    first = (rec["dealer"] + 1) % 4
    order = [(first + p) % 4 for p in range(4)]  # seat of OpenSpiel player p
    hands = [rec["hands"][seat] for seat in order]
    for k in range(13):
        for p in range(4):
            state.apply_action(action(hands[p][k]))
    for seat in order:
        state.apply_action(_BID0 + rec["bids"][seat])
    for code in rec["plays"]:
        a = action(code)
        if a not in state.legal_actions():
            return False
        state.apply_action(a)
    state.returns()
    return True


# --- matches against OpenSpiel's information-set MCTS bot --------------------------------

_CODES = tuple(r + s for s in _SUITS for r in _RANKS)  # OpenSpiel action -> card code


def ismcts_bot(game: Any, simulations: int, seed: int, uct_c: float) -> Any:
    """OpenSpiel's generic ISMCTS bot (its Python one) with random rollouts.

    OpenSpiel's spades has no information-state string and no resampling of the
    hidden cards, so the bot keys information sets by observation strings and is
    given ``Resampler``: the unseen cards dealt again at random, keeping every
    seat's shown voids.
    """
    import numpy as np
    from open_spiel.python.algorithms import ismcts, mcts

    rng = np.random.RandomState(seed)
    evaluator = mcts.RandomRolloutEvaluator(1, rng)
    bot = ismcts.ISMCTSBot(game, evaluator, uct_c, simulations, random_state=rng,
                           use_observation_string=True)
    bot.set_resampler(Resampler(game, seed))
    return bot


class Resampler:
    """States a player cannot tell from the one searched: the same own hand, bids and
    plays, the cards it has not seen dealt to the other seats (each keeps its count
    and never receives a suit it showed void in).

    The search asks for one per simulation from the same root, so what the history
    says (who played what, the voids, the unseen cards) is read once per root.
    """

    def __init__(self, game: Any, seed: int) -> None:
        import random

        self.game = game
        self.rnd = random.Random(seed).random
        self.key: tuple[int, ...] = ()
        self.known: tuple[Any, ...] = ()

    def _read(self, state: Any, player: int) -> tuple[Any, ...]:
        history = state.history()
        key = (player, *history)
        if key == self.key:
            return self.known
        deal, rest = history[:52], history[52:]
        hands = [[a for k, a in enumerate(deal) if k % 4 == p] for p in range(4)]
        replay = self.game.new_initial_state()
        for a in deal:
            replay.apply_action(a)
        played: list[list[int]] = [[], [], [], []]
        void: list[set[int]] = [set(), set(), set(), set()]
        led = -1
        for k, a in enumerate(rest):
            p = replay.current_player()
            if k >= 4:
                if (k - 4) % 4 == 0:
                    led = a // 13
                elif a // 13 != led:
                    void[p].add(led)
                played[p].append(a)
            replay.apply_action(a)
        gone = {a for p in range(4) for a in played[p]}
        others = [p for p in range(4) if p != player]
        pool = [a for p in others for a in hands[p] if a not in gone]
        # The most constrained cards first: those fewer seats may hold.
        pool.sort(key=lambda a: -sum(a // 13 in void[p] for p in others))
        fits = [[p for p in others if a // 13 not in void[p]] for a in pool]
        need = {p: 13 - len(played[p]) for p in others}
        self.key = key
        self.known = (hands[player], rest, played, others, pool, fits, need)
        return self.known

    def __call__(self, state: Any, player: int) -> Any:
        mine, rest, played, others, pool, fits, need = self._read(state, player)
        rnd = self.rnd
        got: dict[int, list[int]] = {p: [] for p in others}
        for _ in range(50):
            cap = dict(need)
            got = {p: [] for p in others}
            for a, can in zip(pool, fits, strict=True):
                total = sum(cap[p] for p in can)
                if not total:
                    break
                x = rnd() * total
                seat = -1
                for p in can:
                    if cap[p]:
                        seat = p
                        x -= cap[p]
                        if x < 0:
                            break
                got[seat].append(a)
                cap[seat] -= 1
            else:
                break
        else:  # the voids could not be kept by chance: deal ignoring them
            i = 0
            for p in others:
                got[p] = pool[i:i + need[p]]
                i += need[p]
        hands = [mine if p == player else played[p] + got[p] for p in range(4)]
        out = self.game.new_initial_state()
        for k in range(13):
            for p in range(4):
                out.apply_action(hands[p][k])
        for a in rest:
            out.apply_action(a)
        return out


def play_deal(hands: Sequence[Sequence[str]], ours: Any, theirs: Any,
              our_team: int) -> tuple[list[float], list[float], list[float]]:
    """One hand of OpenSpiel's ``spades``: our seats ask ``ours(state, seat)`` for a command
    (driven on the engine's own state, mirrored move by move), the others ask the OpenSpiel
    bot ``theirs``. Returns OpenSpiel's returns per seat and the CPU seconds of each of our
    and their decisions (only where there was more than one legal move).

    Seats are OpenSpiel's players (0 bids and leads first, so the engine's dealer is 3).
    OpenSpiel's game never marks spades broken: a lead of spades is legal only from a hand
    of nothing else. Our bot is shown its state with spades unbroken at every lead, so it
    asks the same question OpenSpiel does; following suit is the same in both.
    """
    import time

    import msgspec.structs
    import pyspiel

    from engine.decide import step
    from engine.presets import resolve
    from engine.state import GameState
    from schemas import commands as cmd

    rules = resolve({"preset": "classic", "failed_nil": "help_partner"})
    game = pyspiel.load_game("spades")
    state = game.new_initial_state()
    for k in range(13):
        for p in range(4):
            state.apply_action(action(hands[p][k]))
    mirror = step(GameState(), cmd.StartGame(rules=rules))[0]
    mirror = step(mirror, cmd.DealHand(dealer=3, hands=tuple(tuple(h) for h in hands)))[0]
    our_ms: list[float] = []
    their_ms: list[float] = []
    while not state.is_terminal():
        seat = state.current_player()
        t0 = time.process_time()
        only = state.legal_actions()
        if len(only) == 1:  # no decision: neither side is asked or timed
            a = only[0]
            c = (cmd.PlaceBid(seat=seat, bid=a - _BID0) if a >= _BID0
                 else cmd.PlayCard(seat=seat, card=_CODES[a]))
        elif seat & 1 == our_team:
            shown = msgspec.structs.replace(mirror, broken=False) if not mirror.trick else mirror
            c = ours(shown, seat)
            if isinstance(c, cmd.PlaceBid):
                legal = state.legal_actions()
                a = min(_BID0 + c.bid, max(legal))  # OpenSpiel caps a pair's bids at 13
                c = cmd.PlaceBid(seat=seat, bid=a - _BID0)
            else:
                assert isinstance(c, cmd.PlayCard)
                a = action(c.card)
            our_ms.append(time.process_time() - t0)
        else:
            a = int(theirs.step(state))
            their_ms.append(time.process_time() - t0)
            c = (cmd.PlaceBid(seat=seat, bid=a - _BID0) if a >= _BID0
                 else cmd.PlayCard(seat=seat, card=_CODES[a]))
        assert a in state.legal_actions(), (seat, a)
        state.apply_action(a)
        mirror = step(mirror, c)[0]
    returns = state.returns()
    teams = mirror.sheet[-1].teams
    # The engine's classic rules with failed nil helping the partner score as OpenSpiel does.
    assert (teams[0].delta, teams[1].delta) == (returns[0], returns[1]), (teams, returns)
    return list(returns), our_ms, their_ms
