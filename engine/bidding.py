"""Bidding (looking at the cards, a bid, blind nil) and the blind-nil exchange that
may follow it: the commands of the hand before its first card."""

from __future__ import annotations

from engine.cards import bits, codes
from engine.errors import RuleError
from engine.evolve import blind_nil_offered, evolve, passers
from engine.state import BIDDING, PASSING, PLAY, GameState
from engine.transaction import Tx, check_seat, in_game, parse_card
from engine.trickplay import premoves
from schemas import commands as cmd
from schemas import events as ev
from schemas.rules import Rules


def look(tx: Tx, c: cmd.LookAtCards) -> None:
    s = tx.state
    check_seat(c.seat)
    in_game(s, BIDDING, PASSING, PLAY)
    if not s.looked >> c.seat & 1:
        tx.emit(ev.CardsLooked(seat=c.seat, at=tx.at))


def _bid_checks(s: GameState, seat: int) -> None:
    check_seat(seat)
    in_game(s, BIDDING)
    if s.bids[seat] >= 0:
        raise RuleError("already_bid", f"seat {seat} has already bid")
    if not s.waiting >> seat & 1:
        raise RuleError("not_your_turn", f"it is seat {s.waiting.bit_length() - 1}'s turn to bid")


def place_bid(tx: Tx, c: cmd.PlaceBid) -> None:
    s = tx.state
    _bid_checks(s, c.seat)
    check_bid(s, c.bid)
    record_bid(tx, c.seat, c.bid, blind=False, auto=False)


def legal_bids(r: Rules) -> range:
    """The bids ``r`` allows: 0 (nil) to 13, nil only where the rules have it. The one
    statement of it, which ``decide``, the views and the bots ask."""
    return range(0 if r.nil else 1, 14)


def check_bid(s: GameState, bid: int) -> None:
    assert s.rules is not None
    if isinstance(bid, bool) or not isinstance(bid, int) or not 0 <= bid <= 13:
        raise RuleError("bid_out_of_range", f"{bid!r} is not a bid; bids are 0 (nil) to 13")
    if bid not in legal_bids(s.rules):
        raise RuleError("nil_not_allowed", "these rules have no nil; bid 1 to 13")


def blind_nil(tx: Tx, c: cmd.BidBlindNil) -> None:
    s = tx.state
    _bid_checks(s, c.seat)
    if not blind_nil_offered(s, c.seat):
        raise RuleError("blind_nil_not_offered", _why_no_blind_nil(s, c.seat))
    record_bid(tx, c.seat, 0, blind=True, auto=False)


def _why_no_blind_nil(s: GameState, seat: int) -> str:
    assert s.rules is not None
    if not s.rules.blind_nil:
        return "these rules have no blind nil"
    if s.looked >> seat & 1:
        return f"seat {seat} has looked at its cards"
    return f"blind nil needs the team to trail by {s.rules.blind_nil_margin} or more"


def record_bid(tx: Tx, seat: int, bid: int, blind: bool, auto: bool) -> None:
    s = tx.state
    assert s.rules is not None
    last = s.bids.count(-1) == 1
    deadline = tx.bid_deadline() if s.rules.bidding == "sequential" and not last else 0
    unseen = not s.looked >> seat & 1
    if unseen and not blind:  # bidding a number means looking first
        tx.emit(ev.CardsLooked(seat=seat, at=tx.at))
    s = tx.emit(ev.BidPlaced(seat=seat, bid=bid, blind=blind, auto=auto, deadline=deadline,
                             at=tx.at))
    if unseen and blind:  # blind nil declared: now the seat may see its cards
        s = tx.emit(ev.CardsLooked(seat=seat, at=tx.at))
    if last:
        blind_flags = tuple(bool(s.blind >> i & 1) for i in range(4))
        if passers(s):
            deadline = tx.bid_deadline()
        else:
            leader = (s.dealer + 1) % 4
            deadline = tx.play_deadline(s.hands[leader], (), False)
        tx.emit(ev.BidsRevealed(bids=s.bids, blind=blind_flags,  # type: ignore[arg-type]
                                deadline=deadline, at=tx.at))
        premoves(tx)


# --- the blind-nil exchange ---------------------------------------------------------

def pass_cards(tx: Tx, c: cmd.PassCards) -> None:
    s = tx.state
    check_seat(c.seat)
    in_game(s, PASSING)
    if not passers(s) >> c.seat & 1:
        raise RuleError("not_your_turn", f"seat {c.seat} takes no part in the exchange")
    if not s.waiting >> c.seat & 1:
        raise RuleError("already_passed", f"seat {c.seat} has already passed")
    record_pass(tx, c.seat, pass_mask(s, c.seat, c.cards), auto=False)


def pass_mask(s: GameState, seat: int, given: tuple[str, ...]) -> int:
    """The cards ``seat`` passes, checked against the rules' count and its hand."""
    assert s.rules is not None
    n = s.rules.blind_nil_pass
    cards = [parse_card(s, x) for x in given]
    if len(cards) != n or len(set(cards)) != n:
        raise RuleError("wrong_pass_count", f"pass exactly {n} different card(s)")
    for card in cards:
        if not s.hands[seat] >> card & 1:
            raise RuleError("card_not_in_hand", f"seat {seat} does not hold that card")
    return bits(cards)


def record_pass(tx: Tx, seat: int, mask: int, auto: bool) -> None:
    s = tx.emit(ev.CardsPassed(seat=seat, cards=codes(mask), auto=auto, at=tx.at))
    if not s.waiting:
        s = evolve(s, ev.CardsExchanged(at=tx.at))  # the leader's hand after the exchange
        leader = (s.dealer + 1) % 4
        tx.emit(ev.CardsExchanged(deadline=tx.play_deadline(s.hands[leader], (), False),
                                  at=tx.at))
        premoves(tx)
