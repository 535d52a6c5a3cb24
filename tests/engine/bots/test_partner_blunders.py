"""The partner blunders players complain of most, each counted over many bot hands.

The positions are those of seeded hands of ``basic`` bots at all four seats
(through ``step``); at each position where a blunder is possible each level is
asked for its card (the ``expert`` at up to ``EXPERT_POSITIONS`` of them, as it
searches), and the card is checked against the blunder's definition, written
from what the seat could see. A test counts every blunder and says how often it
happened; the blind nil test prints its made rate beside the ``expert``'s nils.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from functools import cache
from typing import Any

import pytest

from engine.bots import choose
from engine.bots.arena import deal
from engine.bots.bidding import bid_for
from engine.bots.playout import fast_of
from engine.bots.seen import Seen
from engine.cards import card_id, code
from engine.decide import step
from engine.play import legal_cards
from engine.presets import PRESETS, resolve
from engine.state import PLAY, GameState
from schemas import commands as cmd
from schemas.rules import Rules

HANDS = 400  # seeded hands of basic bots, whose positions every level is asked about
EXPERT_HANDS = 24  # hands of expert bots, for their nils beside the blind nils
EXPERT_POSITIONS = 150  # positions per test at which the expert is asked (it searches)
BUDGET = 16  # the expert's sampled deals per decision here (the default is larger)
LEVELS = ("beginner", "basic", "expert")

Decision = tuple[GameState, int, cmd.Command]


@cache
def _decisions(level: str, preset: str, nil: bool = False) -> tuple[tuple[Decision, ...], int]:
    """Every (state, seat, command) of ``HANDS[level]`` seeded hands, and their count;
    with ``nil``, only deals on which some seat would bid nil (where nil blunders live)."""
    rules = PRESETS[preset]
    out: list[Decision] = []
    n = HANDS if level == "basic" else EXPERT_HANDS
    i = 0
    for _ in range(n):
        while nil and not _nil_deal(rules, i):
            i += 1
        out += _hand(rules, i, level)
        i += 1
    return tuple(out), n


def _nil_deal(rules: Rules, i: int) -> bool:
    f = fast_of(rules)
    hands = deal(random.Random(f"blunders:{i}"), rules)
    return any(bid_for(f, f.to_bits(sum(1 << card_id(c) for c in h)), -1, True) == 0
               for h in hands)


def _finals(level: str, preset: str) -> Iterator[GameState]:
    """The state at the end of each of those hands."""
    for s, _seat, c in _decisions(level, preset)[0]:
        after = step(s, c)[0]
        if after.hands_played:
            yield after


def _hand(rules: Rules, i: int, level: str, scores: tuple[int, int] = (0, 0)) -> list[Decision]:
    s = step(GameState(), cmd.StartGame(rules=rules, scores=scores))[0]
    s = step(s, cmd.DealHand(dealer=i % 4, hands=deal(random.Random(f"blunders:{i}"), rules)))[0]
    out = []
    while s.hands_played == 0:
        seat = next(x for x in range(4) if s.waiting >> x & 1)
        c = choose(s, seat, level, seed=i, budget=BUDGET)
        out.append((s, seat, c))
        s = step(s, c)[0]
    return out


def _plays(level: str, preset: str, nil: bool = False, where=None
           ) -> Iterator[tuple[GameState, int, int]]:
    """(state, seat, card ``level`` plays) at each play of the ``basic`` hands that
    ``where(state, seat)`` accepts (at most ``EXPERT_POSITIONS`` for the ``expert``)."""
    asked = 0
    for s, seat, c in _decisions("basic", preset, nil)[0]:
        if s.phase != PLAY or not isinstance(c, cmd.PlayCard) or (where and not where(s, seat)):
            continue
        if level == "basic":
            yield s, seat, card_id(c.card)
            continue
        if level == "expert" and asked == EXPERT_POSITIONS:
            return
        asked += 1
        mine = choose(s, seat, level, seed=asked, budget=BUDGET)
        assert isinstance(mine, cmd.PlayCard)
        yield s, seat, card_id(mine.card)


def _winning(s: GameState) -> tuple[int, int]:
    """The card winning the trick in progress and its seat."""
    d = s.deck
    lead = d.suit_of[s.trick[0]]
    best, seat = s.trick[0], s.leader
    for i, c in enumerate(s.trick[1:], 1):
        if _beats(s, c, best, lead):
            best, seat = c, (s.leader + i) % 4
    return best, seat


def _beats(s: GameState, c: int, best: int, lead: int) -> bool:
    d = s.deck
    if d.suit_of[c] == d.suit_of[best]:
        return d.power[c] > d.power[best]
    return d.suit_of[c] == 0 and d.suit_of[best] != 0  # a trump over a side card


def _surely_wins(s: GameState, seat: int, card: int) -> bool:
    """Whether ``card``, now winning, wins the trick against anything the opponents still
    to play could hold, as ``seat`` can tell: the cards it has not seen, less the suits
    each opponent showed void in. A ruff is possible from any seat not shown void in
    trumps, since any seat may be void in the led suit."""
    d = s.deck
    k = Seen(s, seat)
    later = [(s.leader + i) % 4 for i in range(len(s.trick) + 1, 4)]
    out = d.mask & ~s.hands[seat] & ~_played(s)
    lead = d.suit_of[s.trick[0]]
    for o in later:
        if o & 1 == seat & 1:
            continue
        could = out & ~k.f.to_ids(k.voids[o])
        for c in range(54):
            if could >> c & 1 and _beats(s, c, card, lead):
                return False
    return True


def _played(s: GameState) -> int:
    held = s.hands[0] | s.hands[1] | s.hands[2] | s.hands[3]
    return s.deck.mask & ~held


def _live_nil(s: GameState, seat: int) -> bool:
    return s.bids[seat] == 0 and s.tricks[seat] == 0


def _guards(s: GameState, seat: int) -> bool:
    """Whether ``seat`` has a partner's nil to protect: the partner's nil is alive and
    its own is not (two live nils each duck for themselves)."""
    return _live_nil(s, seat ^ 2) and not _live_nil(s, seat)


def _sure_partner(s: GameState, seat: int) -> bool:
    """The partner (not a live nil) is winning the trick surely, and a card that loses
    to its card is legal."""
    if not s.trick:
        return False
    best, who = _winning(s)
    if who != seat ^ 2 or _live_nil(s, who) or not _surely_wins(s, seat, best):
        return False
    lead = s.deck.suit_of[s.trick[0]]
    legal = legal_cards(s, seat)
    return any(legal >> c & 1 and not _beats(s, c, best, lead) for c in range(54))


@pytest.mark.parametrize("preset", ["house", "classic"])
@pytest.mark.parametrize("level", LEVELS)
def test_never_overtakes_a_partner_who_surely_wins_the_trick(level: str, preset: str) -> None:
    """A partner's card that nobody still to play can beat is not overtaken while a card
    that loses to it is legal: the overtake cannot gain a trick, only waste a high one
    (an overtrump of a partner's ruff, or an ace on a partner's sure king)."""
    seen = blunders = 0
    for s, _seat, card in _plays(level, preset, where=_sure_partner):
        best, _ = _winning(s)
        seen += 1
        blunders += _beats(s, card, best, s.deck.suit_of[s.trick[0]])
    n = HANDS
    assert seen > 20, f"only {seen} such positions in {n} hands"
    assert blunders == 0, f"{level} overtook a sure partner {blunders} times of {seen} ({n} hands)"


def _nil_to_cover(s: GameState, seat: int) -> bool:
    """The partner's live nil is winning the trick and a legal card beats it."""
    if not s.trick or not _guards(s, seat):
        return False
    best, who = _winning(s)
    lead = s.deck.suit_of[s.trick[0]]
    legal = legal_cards(s, seat)
    return who == seat ^ 2 and any(legal >> c & 1 and _beats(s, c, best, lead)
                                   for c in range(54))


@pytest.mark.parametrize("preset", ["house", "classic"])
@pytest.mark.parametrize("level", LEVELS)
def test_never_leaves_a_nil_partner_uncovered(level: str, preset: str) -> None:
    """A partner whose nil is still alive and whose card is winning the trick is covered
    whenever a legal card beats it."""
    seen = blunders = 0
    for s, _seat, card in _plays(level, preset, nil=True, where=_nil_to_cover):
        best, _ = _winning(s)
        seen += 1
        blunders += not _beats(s, card, best, s.deck.suit_of[s.trick[0]])
    n = HANDS
    assert seen > 5, f"only {seen} such positions in {n} hands"
    assert blunders == 0, f"{level} left a nil partner uncovered {blunders} times of {seen}"


@pytest.mark.parametrize("preset", ["house", "classic"])
@pytest.mark.parametrize("level", LEVELS)
def test_never_leads_low_into_a_nil_partner(level: str, preset: str) -> None:
    """A lead while the partner's nil is alive is the highest card the leader holds in
    that suit (so the nil can duck under it), unless the leader holds nothing but
    that suit; and the partner's nil is never broken on a trick its partner led low.
    The rate of nils broken on the partner's lead is in the message either way."""
    leads = low = broken = 0
    for s, seat, card in _plays(level, preset, nil=True,
                                where=lambda s, seat: not s.trick and _guards(s, seat)):
        leads += 1
        d = s.deck
        suit = d.suit_mask[d.suit_of[card]] & s.hands[seat]
        top = max((c for c in range(54) if suit >> c & 1), key=lambda c: d.power[c])
        if card != top and s.hands[seat] & ~d.suit_mask[d.suit_of[card]]:
            low += 1
            after = step(s, cmd.PlayCard(seat=seat, card=code(card)))[0]
            broken += _nil_broken_on(after, seat)
    n = HANDS
    assert leads > 10, f"only {leads} leads to a live nil partner in {n} hands"
    assert low == 0, (f"{level} led low into a live nil partner {low} times of {leads} "
                      f"({broken} of them broke the nil)")


def _nil_broken_on(s: GameState, seat: int) -> bool:
    """Whether the partner of ``seat`` wins the trick just led, bots playing it out."""
    tricks = s.tricks[seat ^ 2]
    while len(s.trick) and s.phase == PLAY:
        p = next(x for x in range(4) if s.waiting >> x & 1)
        s = step(s, choose(s, p, "basic"))[0]
    return s.tricks[seat ^ 2] > tricks


BLIND: dict[str, str | dict[str, Any]] = {
    "house": "house", "house, exchange 2": {"preset": "house", "blind_nil_pass": 2},
    "classic with blind nil": {"preset": "classic", "blind_nil": True}}


@pytest.mark.parametrize("name", sorted(BLIND))
def test_blind_nil_only_when_the_odds_favour_it(name: str) -> None:
    """A team 300 behind is offered blind nil on every hand. Without an exchange a blind
    nil is made well under half the time, so no bot bids it; with a two-card exchange
    it is made most of the time, so one seat of the pair (never both) bids it, and
    makes it more often than not. The made rate is shown beside the ``expert``'s
    ordinary nils."""
    rules = resolve(BLIND[name])
    bids = made = 0
    for i in range(200):
        hand = _hand(rules, i, "basic", scores=(0, 300))
        blind = {seat for _, seat, c in hand if isinstance(c, cmd.BidBlindNil)}
        assert len(blind) <= 1 and not blind & {1, 3}
        final = step(hand[-1][0], hand[-1][2])[0]
        bids += len(blind)
        made += sum(final.tricks[seat] == 0 for seat in blind)
    nils = nils_made = 0
    for final in _finals("expert", "house"):
        for x in range(4):
            if final.bids[x] == 0:
                nils += 1
                nils_made += final.tricks[x] == 0
    print(f"{name}: blind nil bid on {bids} of 200 hands, made {made}"
          f" ({made / max(bids, 1):.0%}); expert's nils made {nils_made} of {nils}")
    if rules.blind_nil_pass >= 1:
        assert bids > 100 and made / bids >= 0.5, f"blind nil made {made} of {bids}"
    else:
        assert bids == 0, f"blind nil bid {bids} times, made {made}"
