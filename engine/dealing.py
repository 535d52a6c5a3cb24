"""Starting a game and dealing its hands: from the game's own seed, or the hands a
platform without a seed sends (``DealHand``), checked card by card."""

from __future__ import annotations

from engine import shuffle
from engine.cards import CARD_IDS, CODES, bits, codes, mask_of
from engine.errors import RuleError
from engine.play import deck_of
from engine.state import DEALING, NEW, OVER
from engine.transaction import Tx, check_seat, in_game, parse_card
from schemas import commands as cmd
from schemas import events as ev


def start(tx: Tx, c: cmd.StartGame) -> None:
    if tx.state.phase != NEW:
        raise RuleError("game_already_started", "the game has already started")
    seed_hash = ""
    if c.seed:
        try:
            seed = bytes.fromhex(c.seed)
        except ValueError:
            raise RuleError("bad_seed", "the seed must be hex") from None
        if len(seed) < 16:
            raise RuleError("bad_seed", "the seed must be at least 16 bytes")
        seed_hash = shuffle.commitment(seed)
    elif c.sealed:
        raise RuleError("bad_seed", "only a supplied seed is sealed")
    s = tx.emit(ev.GameStarted(rules=c.rules, players=c.players, seed=c.seed,
                               seed_hash=seed_hash, scores=c.scores, bags=c.bags,
                               rated=c.rated, sealed=c.sealed, at=c.at))
    if c.seed:
        deal_from_seed(tx, shuffle.first_dealer(bytes.fromhex(s.seed)))


def deal_from_seed(tx: Tx, dealer: int) -> None:
    s = tx.state
    assert s.rules is not None
    seed = bytes.fromhex(s.seed)
    hand_no = s.hand_no + 1
    hands = shuffle.deal(seed, hand_no, dealer, deck_of(s.rules).cards)
    tx.emit(ev.HandDealt(hand_no=hand_no, dealer=dealer,
                         hands=tuple(codes(bits(h)) for h in hands),
                         seed_hash=shuffle.commitment(shuffle.hand_seed(seed, hand_no)),
                         deadline=tx.bid_deadline(), at=tx.at))


def deal(tx: Tx, c: cmd.DealHand) -> None:
    s = tx.state
    if s.phase == OVER:
        raise RuleError("match_over", "the match is over; no more hands are dealt")
    in_game(s, DEALING)
    if s.seed:
        raise RuleError("wrong_phase", "this game deals its own hands from its seed")
    check_seat(c.dealer)
    if s.hand_no and c.dealer != (s.dealer + 1) % 4:
        raise RuleError("wrong_dealer",
                        f"seat {(s.dealer + 1) % 4} deals this hand, not seat {c.dealer}")
    if len(c.hands) != 4 or any(len(h) != 13 for h in c.hands):
        raise RuleError("bad_deal", "a deal is four hands of 13 cards")
    seen = 0
    hands = []
    in_deck = s.deck.mask
    for h in c.hands:
        try:
            mask = mask_of(h)  # canonical codes, the common case
        except (KeyError, TypeError):
            mask = -1
        if mask & ~in_deck:  # not all canonical codes of the deck: the careful parser
            cards = [parse_card(s, code) for code in h]  # reads them, or says why not
            mask = bits(cards)
            h = tuple([CODES[card] for card in cards])
        if seen & mask or mask.bit_count() != 13:
            cards = [CARD_IDS[x] for x in h]
            twice = next(card for i, card in enumerate(cards)
                         if seen >> card & 1 or card in cards[:i])
            raise RuleError("bad_deal", f"{CODES[twice]} is dealt twice")
        seen |= mask
        hands.append(tuple(h))
    tx.emit(ev.HandDealt(hand_no=s.hand_no + 1, dealer=c.dealer, hands=tuple(hands),
                         deadline=tx.bid_deadline(), at=tx.at))
