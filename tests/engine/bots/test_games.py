"""Whole games: bots only send commands the engine accepts, under every preset,
and decide from what their seat can see and nothing else."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec.structs import replace

from engine.bots import LEVELS, NothingToDo, choose, timeout_command
from engine.bots.expert import Sampler
from engine.bots.seen import Seen
from engine.decide import step
from engine.presets import PRESETS, resolve
from engine.state import BIDDING, OVER, PASSING, PLAY, GameState
from schemas import commands as cmd
from schemas.rules import Rules


def _seat(s: GameState) -> int:
    return next(i for i in range(4) if s.waiting >> i & 1)


def play_game(rules: Rules, seed: int, levels: tuple[str, str], max_hands: int,
              scores: tuple[int, int] = (0, 0), visit=None) -> GameState:
    """A seeded game of bots through ``step``; a refused command fails the test."""
    s = step(GameState(), cmd.StartGame(rules=rules, seed=f"{seed:064x}", scores=scores))[0]
    while s.phase != OVER and s.hands_played < max_hands:
        seat = _seat(s)
        if visit:
            visit(s, seat)
        s = step(s, choose(s, seat, levels[seat & 1], seed=seed, budget=3))[0]
    return s


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_basic_bots_play_whole_matches_with_legal_commands(preset: str) -> None:
    for seed in range(2):
        s = play_game(PRESETS[preset], seed, ("basic", "basic"), max_hands=40)
        assert s.phase == OVER


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**64 - 1), preset=st.sampled_from(sorted(PRESETS)),
       levels=st.sampled_from([("basic", "basic"), ("basic", "expert"), ("expert", "basic"),
                               ("beginner", "expert"), ("basic", "beginner")]),
       behind=st.sampled_from([0, 150, 300]), passing=st.sampled_from([0, 1, 2]))
def test_any_seeded_hand_gets_only_legal_commands(seed: int, preset: str,
                                                  levels: tuple[str, str], behind: int,
                                                  passing: int) -> None:
    spec: dict = {"preset": preset}
    if PRESETS[preset].blind_nil and passing:
        spec["blind_nil_pass"] = passing
    s = play_game(resolve(spec), seed, levels, max_hands=1, scores=(0, behind))
    assert s.hands_played == 1 or s.phase == OVER


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_expert_bots_play_legal_cards(preset: str) -> None:
    s = play_game(PRESETS[preset], 11, ("expert", "basic"), max_hands=2)
    assert s.hands_played >= 1


def test_a_void_shown_early_in_the_hand_is_still_known_at_the_end() -> None:
    """Bots read the hand's finished tricks from the state: a seat that failed to
    follow a suit in any trick is known to be void in it for the rest of the hand."""
    from engine.bots.seen import Seen

    seen_void = 0

    def visit(s: GameState, seat: int) -> None:
        nonlocal seen_void
        if s.phase != PLAY or len(s.played) < 2:
            return
        k = Seen(s, seat)
        f = k.f
        first = (s.dealer + 1) % 4
        for t, by_seat in enumerate(s.played):
            lead = first if t == 0 else s.trick_winners[t - 1]
            led = f.suit_at[f.bit[by_seat[lead]].bit_length()]
            for i in range(1, 4):
                who = (lead + i) % 4
                if not f.bit[by_seat[who]] & led:
                    assert k.voids[who] & led == led
                    seen_void += 1

    play_game(PRESETS["classic"], 21, ("basic", "basic"), max_hands=2, visit=visit)
    assert seen_void > 20


@pytest.mark.parametrize("spec", [
    {"preset": "classic", "deck": "jokers"}, {"preset": "classic", "deck": "deuces"},
    {"preset": "classic", "deck": "deuce_ace"},
    {"preset": "house", "deuce_order": "spade_high"},
    {"preset": "classic", "deck": "deuces", "deuce_order": "spade_high", "nil": False},
])
def test_bots_play_every_deck(spec: dict) -> None:
    rules = resolve(spec)
    s = play_game(rules, 4, ("basic", "expert"), max_hands=2)
    assert s.hands_played == 2


def test_a_team_far_behind_bids_blind_nil_and_exchanges_cards() -> None:
    rules = resolve({"preset": "house", "blind_nil_pass": 2})
    phases: set[str] = set()
    blind: set[int] = set()

    def visit(s: GameState, seat: int) -> None:
        phases.add(s.phase)
        blind.add(s.blind)

    play_game(rules, 3, ("basic", "expert"), max_hands=1, scores=(0, 300), visit=visit)
    assert PASSING in phases
    assert any(b & 0b0101 for b in blind)


def test_a_seat_that_has_not_looked_looks_before_bidding() -> None:
    s = step(GameState(), cmd.StartGame(rules=PRESETS["house"], seed="00" * 32,
                                        scores=(0, 120)))[0]
    assert choose(s, 0) == cmd.LookAtCards(seat=0)  # 120 behind: blind nil offered, not taken
    s = step(s, cmd.LookAtCards(seat=0))[0]
    assert isinstance(choose(s, 0), cmd.PlaceBid)


def test_a_clock_running_out_plays_the_basic_choice() -> None:
    s = step(GameState(), cmd.StartGame(rules=PRESETS["classic"], seed="11" * 32))[0]
    auto = 0
    while s.phase in (BIDDING, PLAY) and s.hands_played == 0:
        seat = _seat(s)
        s, events = step(s, timeout_command(s, seat, at=s.deadlines[seat]))
        auto += sum(1 for e in events if getattr(e, "auto", False))
    assert s.hands_played == 1 and auto >= 4 + 52


def test_a_seat_with_nothing_to_do_is_told_so() -> None:
    s = step(GameState(), cmd.StartGame(rules=PRESETS["classic"], seed="22" * 32))[0]
    idle = next(i for i in range(4) if not s.waiting >> i & 1)
    with pytest.raises(NothingToDo):
        choose(s, idle)
    with pytest.raises(ValueError, match="level"):
        choose(s, _seat(s), "grandmaster")


def _redeal_hidden(s: GameState, seat: int, rng: random.Random) -> GameState:
    """The same position as ``seat`` sees it, with the other seats' cards shuffled among them."""
    others = [i for i in range(4) if i != seat]
    pool = [c for i in others for c in range(54) if s.hands[i] >> c & 1]
    rng.shuffle(pool)
    hands = list(s.hands)
    for i in others:
        n = s.hands[i].bit_count()
        hands[i] = sum(1 << c for c in pool[:n])
        pool = pool[n:]
    # Each seat's cards as dealt are what it holds now plus what it played face up.
    dealt = tuple(hands[i] | (s.dealt[i] & ~s.hands[i]) for i in range(4))
    return replace(s, hands=tuple(hands), dealt=dealt)


@pytest.mark.parametrize("level", LEVELS)
def test_hidden_cards_do_not_change_a_bot_choice(level: str) -> None:
    rng = random.Random(1)
    checked = 0

    def visit(s: GameState, seat: int) -> None:
        nonlocal checked
        if s.phase not in (BIDDING, PLAY) or not s.looked >> seat & 1:
            return
        mine = choose(s, seat, level, seed=7, budget=4)
        for _ in range(2):
            other = _redeal_hidden(s, seat, rng)
            assert choose(other, seat, level, seed=7, budget=4) == mine
        checked += 1

    for preset in ("house", "classic"):
        play_game(PRESETS[preset], 5, ("basic", "basic"), max_hands=1, visit=visit)
    assert checked > 100


@pytest.mark.parametrize("level", LEVELS)
def test_secret_bids_are_not_read_before_the_reveal(level: str) -> None:
    rules = PRESETS["house"]
    for seed in range(12):
        s = step(GameState(), cmd.StartGame(rules=rules, seed=f"{seed:064x}"))[0]
        s = step(s, cmd.PlaceBid(seat=1, bid=1))[0]
        s = step(s, cmd.PlaceBid(seat=2, bid=0))[0]
        want = choose(s, 0, level, budget=4)
        for bids in ((-1, 13, 13, -1), (-1, 0, 5, -1), (-1, 4, 1, -1)):
            assert choose(replace(s, bids=bids), 0, level, budget=4) == want


def test_the_expert_is_repeatable_for_a_seed() -> None:
    picks = []

    def visit(s: GameState, seat: int) -> None:
        if s.phase == PLAY:
            picks.append(choose(s, seat, "expert", seed=3, budget=6))

    play_game(PRESETS["house"], 8, ("basic", "basic"), max_hands=1, visit=visit)
    again: list = []

    def visit2(s: GameState, seat: int) -> None:
        if s.phase == PLAY:
            again.append(choose(s, seat, "expert", seed=3, budget=6))

    play_game(PRESETS["house"], 8, ("basic", "basic"), max_hands=1, visit=visit2)
    assert picks == again and len(picks) == 52


def test_sampled_deals_agree_with_everything_the_seat_saw() -> None:
    rules = PRESETS["house"]
    seen_voids = 0

    def visit(s: GameState, seat: int) -> None:
        nonlocal seen_voids
        if s.phase != PLAY:
            return
        k = Seen(s, seat)
        f = k.f
        sampler = Sampler(k, random.Random(len(s.played)))
        unseen = f.all & ~k.played & ~k.hand
        for _ in range(5):
            hands = sampler.sample()
            assert hands[seat] == k.hand
            assert hands[0] | hands[1] | hands[2] | hands[3] == unseen | k.hand
            assert sum(h.bit_count() for h in hands) == (unseen | k.hand).bit_count()
            for i in range(4):
                assert hands[i].bit_count() == s.hands[i].bit_count()
                assert not hands[i] & k.voids[i] or i == seat
        seen_voids += any(k.voids)

    for seed in range(3):
        play_game(rules, seed, ("basic", "basic"), max_hands=1, visit=visit)
    assert seen_voids
