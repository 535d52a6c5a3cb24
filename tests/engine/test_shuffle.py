"""Provably fair deals: anyone can recompute every deal from the revealed seed.

The check below is the "few lines of code" a player would write from the
algorithm in ``engine/shuffle.py``'s docstring, using only ``hashlib`` and
``hmac`` and the card order it describes; it shares no code with the engine.
"""

from __future__ import annotations

import hashlib
import hmac

from engine.cards import codes
from engine.decide import step
from engine.state import GameState
from schemas import commands as cmd
from schemas import events as ev

from .helpers import HOUSE, refusal, rules
from .randomgame import play_game

# The deck in card-id order: 2S..AS, 2H..AH, 2D..AD, 2C..AC, BJ, LJ.
ALL_CARDS = [r + s for s in "SHDC" for r in "23456789TJQKA"] + ["BJ", "LJ"]
REMOVED = {"standard": {"BJ", "LJ"}, "jokers_deuces": {"2H", "2C"},
           "jokers": {"2C", "2D"}, "deuces": {"BJ", "LJ"}, "deuce_ace": {"BJ", "LJ"}}


def _stream(key: bytes):
    i = 0
    while True:
        block = hmac.new(key, i.to_bytes(8, "big"), hashlib.sha256).digest()
        for k in range(0, 32, 8):
            yield int.from_bytes(block[k:k + 8], "big")
        i += 1


def _uniform(numbers, n: int) -> int:
    limit = 2**64 - 2**64 % n
    while (u := next(numbers)) >= limit:
        pass
    return u % n


def recompute_first_dealer(seed: bytes) -> int:
    return _uniform(_stream(hmac.new(seed, b"spades/dealer", hashlib.sha256).digest()), 4)


def recompute_deal(seed: bytes, hand_no: int, dealer: int, deck: str) -> list[list[str]]:
    key = hmac.new(seed, b"spades/hand/" + str(hand_no).encode(), hashlib.sha256).digest()
    cards = [c for c in ALL_CARDS if c not in REMOVED[deck]]
    numbers = _stream(key)
    for i in range(len(cards) - 1, 0, -1):
        j = _uniform(numbers, i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    hands: list[list[str]] = [[], [], [], []]
    for p, c in enumerate(cards):
        hands[(dealer + 1 + p) % 4].append(c)
    return hands


ZERO_SEED = "00" * 32
# Test vector for seed 00...00 under the house deck: the first dealer and the
# cards seat 0 receives in the first hand, in the order they are dealt.
ZERO_FIRST_DEALER = 3
ZERO_SEAT0_HAND1 = ["5C", "3D", "KC", "2D", "4D", "7H", "JS", "QH", "8C", "8D", "5D", "JH",
                    "9D"]


def test_provably_fair_test_vector_for_the_zero_seed() -> None:
    """Pinned values, so that an independent checker can test itself: seed '00'*32
    gives first dealer 3 and seat 0 this first hand."""
    seed = bytes.fromhex(ZERO_SEED)
    assert recompute_first_dealer(seed) == ZERO_FIRST_DEALER
    assert recompute_deal(seed, 1, ZERO_FIRST_DEALER, "jokers_deuces")[0] == ZERO_SEAT0_HAND1
    _, events = step(GameState(), cmd.StartGame(rules=HOUSE, seed=ZERO_SEED, at=0))
    dealt = next(e for e in events if isinstance(e, ev.HandDealt))
    assert dealt.dealer == ZERO_FIRST_DEALER
    assert sorted(dealt.hands[0]) == sorted(ZERO_SEAT0_HAND1)


def test_first_dealer_from_seed() -> None:
    """"online, the first dealer is picked at random" - from the game's seed, so the
    choice can be checked too."""
    seen = set()
    for k in range(12):
        seed = hashlib.sha256(bytes([k])).hexdigest()
        s = step(GameState(), cmd.StartGame(rules=HOUSE, seed=seed))[0]
        assert s.dealer == recompute_first_dealer(bytes.fromhex(seed))
        seen.add(s.dealer)
    assert seen == {0, 1, 2, 3}


def test_every_deal_of_a_game_recomputes_from_the_revealed_seed() -> None:
    """A whole game: the seed is committed at the start, each hand's seed hash is
    public at its deal, the seed is revealed at the end, and from it every hand
    dealt - one card at a time clockwise from the dealer's left - is recomputed."""
    for preset, deck in (("house", "jokers_deuces"), ("classic", "standard"),
                         ("quick", "jokers_deuces")):
        steps = play_game(5, rules(preset), max_hands=None)
        events = [e for _, es in steps for e in es]
        started = events[0]
        assert isinstance(started, ev.GameStarted)
        ended = events[-1]
        assert isinstance(ended, ev.GameEnded) and ended.seed == started.seed
        seed = bytes.fromhex(ended.seed)
        assert hashlib.sha256(seed).hexdigest() == started.seed_hash
        deals = [e for e in events if isinstance(e, ev.HandDealt)]
        assert deals[0].dealer == recompute_first_dealer(seed)
        for d in deals:
            hand_seed = hmac.new(seed, b"spades/hand/" + str(d.hand_no).encode(),
                                 hashlib.sha256).digest()
            assert d.seed_hash == hashlib.sha256(hand_seed).hexdigest()
            mine = recompute_deal(seed, d.hand_no, d.dealer, deck)
            assert [sorted(h) for h in mine] == [sorted(h) for h in d.hands]


def test_other_deck_variants_recompute_too() -> None:
    """The checker's deck list matches the engine's for every variant."""
    seed = bytes(range(32))
    for deck in REMOVED:
        r = rules("house", deck=deck, deuce_order="diamond_high")
        s = step(GameState(), cmd.StartGame(rules=r, seed=seed.hex()))[0]
        mine = recompute_deal(seed, 1, s.dealer, deck)
        assert [sorted(h) for h in mine] == [sorted(codes(h)) for h in s.hands]


def test_seed_must_be_long_hex() -> None:
    """A seed is at least 16 bytes of hex, or the deal could be guessed."""
    assert refusal(GameState(), cmd.StartGame(rules=HOUSE, seed="zz")) == "bad_seed"
    assert refusal(GameState(), cmd.StartGame(rules=HOUSE, seed="00" * 8)) == "bad_seed"


def test_documented_test_vector_for_the_standard_deck() -> None:
    """The published vector (seed 00...00, standard deck) recomputes exactly with the
    independent checker: commitments, first dealer and all four hands."""
    seed = bytes.fromhex(ZERO_SEED)
    assert hashlib.sha256(seed).hexdigest() == (
        "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925")
    hand_seed = hmac.new(seed, b"spades/hand/1", hashlib.sha256).digest()
    assert hashlib.sha256(hand_seed).hexdigest() == (
        "56eb1e9a68b3a33e64cb898c62d4f6b3241eb9e5bac15118eceb872185863681")
    dealer = recompute_first_dealer(seed)
    hands = recompute_deal(seed, 1, dealer, "standard")
    order = {c: i for i, c in enumerate(ALL_CARDS)}
    published = ["JS 6H TH JH AH 2D 3D 4D 7D 8D 3C 6C JC",
                 "4S 7S 8S AS 2H 4H 5H 5D KD AD 5C 9C KC",
                 "3S 6S TS 7H 8H KH 9D TD 4C 7C 8C TC QC",
                 "2S 5S 9S QS KS 3H 9H QH 6D JD QD 2C AC"]
    assert dealer == 3
    assert [" ".join(sorted(h, key=order.__getitem__)) for h in hands] == published
