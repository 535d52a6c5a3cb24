"""The fast path agrees with the engine: card order, legal cards, tricks, scores."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.bots.arena import bot, deal, play_hand
from engine.bots.basic import policy
from engine.bots.expert import rollout
from engine.bots.playout import breaks, fast, random_playout, scorer, split
from engine.bots.playout import legal as fast_legal
from engine.bots.seen import Seen, contracts_of
from engine.cards import deck, ids
from engine.play import breaks_spades, legal_mask, trick_winner, winning
from engine.scoring import score_team
from tests.engine.bots.situations import position
from tests.engine.test_properties import PROFILES, SETTINGS, any_rules

DECKS = [("standard", "diamond_high"), ("jokers_deuces", "diamond_high"),
         ("jokers_deuces", "spade_high"), ("jokers", "diamond_high"),
         ("deuces", "diamond_high"), ("deuces", "spade_high"), ("deuce_ace", "diamond_high")]


@pytest.mark.parametrize("broken_by", ["any_spade", "play_on_other_suit"])
@pytest.mark.parametrize(("name", "order"), DECKS)
def test_trick_winner_legal_cards_and_breaking_match_the_engine(name: str, order: str,
                                                                 broken_by: str) -> None:
    """``legal_mask``, ``breaks_spades`` and ``winning`` answer alike on playout bits and
    on card ids, on random hands, some of them all trumps, with spades broken or not."""
    d = deck(name, order)
    f = fast(name, order, broken_by)
    rng = random.Random(name + order + broken_by)
    for _ in range(300):
        cards = list(d.cards)
        rng.shuffle(cards)
        if rng.random() < 0.2:  # a seat of nothing but trumps, to reach the forced lead
            trumps = [c for c in cards if d.trump_mask >> c & 1]
            cards = trumps[:13] + [c for c in cards if c not in trumps[:13]]
            hands = [sum(1 << c for c in cards[i * 13:i * 13 + 13]) for i in range(4)]
        else:
            hands = [sum(1 << c for c in cards[i::4]) for i in range(4)]
        broken = rng.random() < 0.5
        leader = rng.randrange(4)
        trick: list[int] = []
        for k in range(4):
            seat = (leader + k) % 4
            legal = legal_mask(d, hands[seat], tuple(trick), broken)
            bits = f.to_bits(hands[seat])
            fast_trick = [f.bit[c] for c in trick]
            assert f.to_ids(fast_legal(f, bits, fast_trick, broken)) == legal
            card = rng.choice(ids(legal))
            assert breaks(f, fast_trick, f.bit[card]) == breaks_spades(
                d, tuple(trick), card, broken_by == "any_spade")
            trick.append(card)
            # The card taking the trick so far: the same on playout bits as on card ids,
            # and the largest bit among the suit led and the trumps.
            fast_trick.append(f.bit[card])
            win_mask = f.suit_at[fast_trick[0].bit_length()] | f.trump
            best = max(b for b in fast_trick if b & win_mask)
            assert winning(f, fast_trick) == winning(d, trick) == fast_trick.index(best)
        assert trick_winner(f, [f.bit[c] for c in trick], leader) == trick_winner(
            d, tuple(trick), leader)


@pytest.mark.parametrize(("name", "order"), DECKS)
def test_a_random_playout_plays_thirteen_tricks(name: str, order: str) -> None:
    f = fast(name, order)
    rng = random.Random(3)
    for _ in range(200):
        cards = split(f.all)
        rng.shuffle(cards)
        hands = [sum(cards[i::4]) for i in range(4)]
        tricks = random_playout(f, hands, [], rng.randrange(4), False, [0] * 4, rng.random)
        assert sum(tricks) == 13 and hands == [0, 0, 0, 0]


@pytest.mark.parametrize("broken_by", ["any_spade", "play_on_other_suit"])
@pytest.mark.parametrize(("name", "order"), DECKS)
def test_a_random_playout_follows_the_engines_rules(name: str, order: str,
                                                    broken_by: str) -> None:
    """``random_playout`` (the bench's floor) asks the engine's legality and breaking:
    played with the same random stream through the engine's ``legal_mask``, ``breaks_spades``
    and ``trick_winner``, every hand takes the same tricks."""
    d = deck(name, order)
    f = fast(name, order, broken_by)
    rng = random.Random(7)
    for _ in range(300):
        cards = list(d.cards)
        rng.shuffle(cards)
        # The leader is long in trumps, so it is often left with nothing else while
        # other seats still hold a trump and a side card.
        trumps = [c for c in cards if d.trump_mask >> c & 1][:rng.randint(6, 11)]
        cards = trumps + [c for c in cards if c not in trumps]
        hands = [sum(1 << c for c in cards[i * 13:i * 13 + 13]) for i in range(4)]
        leader = 0
        stream = [rng.random() for _ in range(52)]
        fast_tricks = random_playout(f, [f.to_bits(h) for h in hands], [], leader, False,
                                     [0] * 4, iter(stream).__next__)
        draws = iter(stream)
        tricks, broken = [0] * 4, False
        while hands[leader]:
            trick: list[int] = []
            for k in range(4):
                seat = (leader + k) % 4
                legal = sorted(ids(legal_mask(d, hands[seat], tuple(trick), broken)),
                               key=lambda c: f.bit[c])
                card = legal[int(next(draws) * len(legal))]
                broken = broken or breaks_spades(d, tuple(trick), card,
                                                 broken_by == "any_spade")
                hands[seat] &= ~(1 << card)
                trick.append(card)
            leader = trick_winner(d, tuple(trick), leader)
            tricks[leader] += 1
        assert fast_tricks == tricks


@PROFILES
@SETTINGS
@given(data=st.data())
def test_the_fast_scorer_is_the_engines_scoring(profile: str, data: st.DataObject) -> None:
    """Every preset and any variant: the search's scorer gives ``score_team``'s delta and
    bags on random bids, blind flags, tricks and carried bags."""
    rules = data.draw(any_rules(profile))
    s = scorer(rules)
    rng = random.Random(data.draw(st.integers(0, 2**32 - 1)))
    for _ in range(300):
        bids = (rng.choice((0, 0, 1, 3, 5, 13)), rng.choice((0, 1, 2, 4, 6, 13)))
        blind = (rng.random() < 0.2, rng.random() < 0.2)
        a = rng.randint(0, 13)
        took = (a, rng.randint(0, 13 - a))
        bags = rng.randint(0, 11)
        want = score_team(rules, bids, blind, took, 0, bags)
        assert s.team(*bids, *blind, *took, bags) == (want.delta, want.bags_gained)


@PROFILES
@SETTINGS
@given(data=st.data())
def test_a_basic_rollout_with_the_true_hands_replays_the_game(profile: str,
                                                              data: st.DataObject) -> None:
    """Every preset and any variant: the search's rollouts are the ``basic`` bot, card for
    card, so the fast path's legality, breaking and trick winners are the engine's."""
    rules = data.draw(any_rules(profile))
    rng = random.Random(data.draw(st.integers(0, 2**32 - 1)))
    dealer = rng.randrange(4)
    hands = deal(rng, rules)
    final, _ = play_hand(rules, dealer, hands, [bot("basic")] * 4)
    s = position(hands, bids=final.bids, rules=rules, dealer=dealer)
    assert s.phase == "play"
    seat = s.waiting.bit_length() - 1
    k = Seen(s, seat)
    contracts = contracts_of(rules.board, k.bids)
    first = policy(k.f, seat, k.hand, [], k.leader, k.played, k.bids, k.tricks, False,
                   k.voids, contracts)
    bits = [k.f.to_bits(h) for h in s.hands]
    tricks = rollout(k.f, seat, first, bits, [], k.leader, k.played, k.bids, [0] * 4,
                     False, [0] * 4, contracts)
    assert tuple(tricks) == final.tricks
