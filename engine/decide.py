"""``decide(state, command) -> events``: the rules of Spades, one function per command.

``step`` is the same decision returning the state after the events too, which
is what a game worker needs: the events are evolved as they are produced, so
a trick, the hand's score and the next deal come out of one card in order.
Rule violations raise ``RuleError`` before anything is produced.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from engine import shuffle
from engine.cards import CARD_IDS, CODES, TRUMP, bits, card_id, codes, mask_of
from engine.errors import RuleError
from engine.evolve import EVOLVERS, blind_nil_offered, evolve, passers
from engine.play import deck_of, in_seat_order, legal_mask, trick_winner, why_illegal
from engine.scoring import match_outcome, score_hand
from engine.state import (
    BIDDING,
    DEALING,
    NEW,
    OVER,
    PASSING,
    PLAY,
    GameState,
    bot_held,
    seats_in,
)
from engine.state import NO_SEATS as NO_PREMOVES
from schemas import commands as cmd
from schemas import events as ev

SUIT_NAMES = ("spades", "hearts", "diamonds", "clubs")


class _Tx(msgspec.Struct, gc=False):
    """The events of one command, evolved as they are emitted (a Struct: built in C,
    once per command)."""

    state: GameState
    at: int
    events: list[ev.Event]

    def emit(self, e: Any) -> GameState:
        s = self.state
        self.state = s = EVOLVERS[type(e)](s, e, s.version + 1)  # evolve, one call less
        self.events.append(e)
        return s

    def bid_deadline(self) -> int:
        return self.at + self.state.clocks.bid_ms

    def play_deadline(self, hand: int, trick: tuple[int, ...], broken: bool) -> int:
        """The deadline of a seat about to play: shorter with a single legal card."""
        legal = legal_mask(self.state.deck, hand, trick, broken)
        c = self.state.clocks
        return self.at + (c.single_card_ms if legal & (legal - 1) == 0 else c.play_ms)


def _check_seat(seat: int) -> None:
    if not isinstance(seat, int) or not 0 <= seat <= 3:
        raise RuleError("not_a_seat", f"seat {seat!r} is not a seat; seats are 0 to 3")


def _parse_card(s: GameState, code: str) -> int:
    c = CARD_IDS.get(code) if isinstance(code, str) else None
    if c is None:
        try:
            c = card_id(code)
        except (KeyError, AttributeError, TypeError):
            raise RuleError("unknown_card", f"{code!r} is not a card") from None
    assert s.rules is not None
    if not s.deck.mask >> c & 1:
        raise RuleError("card_not_in_deck", f"{code} is not in the {s.rules.deck} deck")
    return c


def _in_game(s: GameState, *phases: str) -> None:
    if s.phase == NEW:
        raise RuleError("game_not_started", "no game has started")
    if s.phase == OVER:
        raise RuleError("game_over", "the match is over")
    if s.phase not in phases:
        raise RuleError("wrong_phase", f"not possible during {s.phase}")


# --- starting and dealing ---------------------------------------------------------

def _start(tx: _Tx, c: cmd.StartGame) -> None:
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
        _deal_from_seed(tx, shuffle.first_dealer(bytes.fromhex(s.seed)))


def _deal_from_seed(tx: _Tx, dealer: int) -> None:
    s = tx.state
    assert s.rules is not None
    seed = bytes.fromhex(s.seed)
    hand_no = s.hand_no + 1
    hands = shuffle.deal(seed, hand_no, dealer, deck_of(s.rules).cards)
    tx.emit(ev.HandDealt(hand_no=hand_no, dealer=dealer,
                         hands=tuple(codes(bits(h)) for h in hands),
                         seed_hash=shuffle.commitment(shuffle.hand_seed(seed, hand_no)),
                         deadline=tx.bid_deadline(), at=tx.at))


def _deal(tx: _Tx, c: cmd.DealHand) -> None:
    s = tx.state
    if s.phase == OVER:
        raise RuleError("match_over", "the match is over; no more hands are dealt")
    _in_game(s, DEALING)
    if s.seed:
        raise RuleError("wrong_phase", "this game deals its own hands from its seed")
    _check_seat(c.dealer)
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
            cards = [_parse_card(s, code) for code in h]  # reads them, or says why not
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


# --- bidding ------------------------------------------------------------------------

def _look(tx: _Tx, c: cmd.LookAtCards) -> None:
    s = tx.state
    _check_seat(c.seat)
    _in_game(s, BIDDING, PASSING, PLAY)
    if not s.looked >> c.seat & 1:
        tx.emit(ev.CardsLooked(seat=c.seat, at=tx.at))


def _bid_checks(s: GameState, seat: int) -> None:
    _check_seat(seat)
    _in_game(s, BIDDING)
    if s.bids[seat] >= 0:
        raise RuleError("already_bid", f"seat {seat} has already bid")
    if not s.waiting >> seat & 1:
        raise RuleError("not_your_turn", f"it is seat {s.waiting.bit_length() - 1}'s turn to bid")


def _place_bid(tx: _Tx, c: cmd.PlaceBid) -> None:
    s = tx.state
    _bid_checks(s, c.seat)
    _check_bid(s, c.bid)
    _record_bid(tx, c.seat, c.bid, blind=False, auto=False)


def _check_bid(s: GameState, bid: int) -> None:
    assert s.rules is not None
    if isinstance(bid, bool) or not isinstance(bid, int) or not 0 <= bid <= 13:
        raise RuleError("bid_out_of_range", f"{bid!r} is not a bid; bids are 0 (nil) to 13")
    if bid == 0 and not s.rules.nil:
        raise RuleError("nil_not_allowed", "these rules have no nil; bid 1 to 13")


def _blind_nil(tx: _Tx, c: cmd.BidBlindNil) -> None:
    s = tx.state
    _bid_checks(s, c.seat)
    if not blind_nil_offered(s, c.seat):
        raise RuleError("blind_nil_not_offered", _why_no_blind_nil(s, c.seat))
    _record_bid(tx, c.seat, 0, blind=True, auto=False)


def _why_no_blind_nil(s: GameState, seat: int) -> str:
    assert s.rules is not None
    if not s.rules.blind_nil:
        return "these rules have no blind nil"
    if s.looked >> seat & 1:
        return f"seat {seat} has looked at its cards"
    return f"blind nil needs the team to trail by {s.rules.blind_nil_margin} or more"


def _record_bid(tx: _Tx, seat: int, bid: int, blind: bool, auto: bool) -> None:
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
        _premoves(tx)


# --- the blind-nil exchange ---------------------------------------------------------

def _pass_cards(tx: _Tx, c: cmd.PassCards) -> None:
    s = tx.state
    _check_seat(c.seat)
    _in_game(s, PASSING)
    if not passers(s) >> c.seat & 1:
        raise RuleError("not_your_turn", f"seat {c.seat} takes no part in the exchange")
    if not s.waiting >> c.seat & 1:
        raise RuleError("already_passed", f"seat {c.seat} has already passed")
    _record_pass(tx, c.seat, _pass_mask(s, c.seat, c.cards), auto=False)


def _pass_mask(s: GameState, seat: int, given: tuple[str, ...]) -> int:
    """The cards ``seat`` passes, checked against the rules' count and its hand."""
    assert s.rules is not None
    n = s.rules.blind_nil_pass
    cards = [_parse_card(s, x) for x in given]
    if len(cards) != n or len(set(cards)) != n:
        raise RuleError("wrong_pass_count", f"pass exactly {n} different card(s)")
    for card in cards:
        if not s.hands[seat] >> card & 1:
            raise RuleError("card_not_in_hand", f"seat {seat} does not hold that card")
    return bits(cards)


def _record_pass(tx: _Tx, seat: int, mask: int, auto: bool) -> None:
    s = tx.emit(ev.CardsPassed(seat=seat, cards=codes(mask), auto=auto, at=tx.at))
    if not s.waiting:
        s = evolve(s, ev.CardsExchanged(at=tx.at))  # the leader's hand after the exchange
        leader = (s.dealer + 1) % 4
        tx.emit(ev.CardsExchanged(deadline=tx.play_deadline(s.hands[leader], (), False),
                                  at=tx.at))
        _premoves(tx)


# --- trick play ---------------------------------------------------------------------

def _play(tx: _Tx, c: cmd.PlayCard) -> None:
    # The commonest command: the checks of _play_checked, inlined.
    s = tx.state
    seat = c.seat
    if s.phase != PLAY:
        _check_seat(seat)
        _in_game(s, PLAY)
    if not (seat in (0, 1, 2, 3) and s.waiting >> seat & 1):
        _check_seat(seat)
        raise RuleError("not_your_turn", f"it is seat {s.waiting.bit_length() - 1}'s turn to play")
    hand = s.hands[seat]
    try:
        card = CARD_IDS.get(c.card)  # a canonical code, the common case
    except TypeError:  # not even a string
        card = None
    if card is None or not hand >> card & 1:  # the careful parser says what it is
        card = _parse_card(s, c.card)
        if not hand >> card & 1:
            raise RuleError("card_not_in_hand", f"seat {seat} does not hold {CODES[card]}")
    d = s.deck
    if not legal_mask(d, hand, s.trick, s.broken) >> card & 1:
        problem = why_illegal(d, hand, s.trick, s.broken, card)
        raise RuleError(problem, _illegal_message(problem, seat, d, s.trick))
    _record_play(tx, seat, card, False, False)
    if tx.state.premoves != NO_PREMOVES:
        _premoves(tx)


def _play_checked(tx: _Tx, seat: int, card: int, auto: bool = False,
                  premove: bool = False) -> None:
    s = tx.state
    assert s.rules is not None
    hand = s.hands[seat]
    if not hand >> card & 1:
        raise RuleError("card_not_in_hand", f"seat {seat} does not hold {CODES[card]}")
    d = s.deck
    problem = why_illegal(d, hand, s.trick, s.broken, card)
    if problem:
        raise RuleError(problem, _illegal_message(problem, seat, d, s.trick))
    _record_play(tx, seat, card, auto, premove)
    _premoves(tx)


def _illegal_message(code: str, seat: int, d: Any, trick: tuple[int, ...]) -> str:
    if code == "must_follow_suit":
        suit = SUIT_NAMES[d.suit_of[trick[0]]]
        what = "a trump" if d.suit_of[trick[0]] == TRUMP else f"a card of {suit}"
        return f"seat {seat} holds {what} and must follow {suit}"
    return f"seat {seat} cannot lead a trump before trumps are broken"


def _record_play(tx: _Tx, seat: int, card: int, auto: bool, premove: bool) -> None:
    s = tx.state
    trick = (*s.trick, card)
    if len(trick) < 4:
        tx.emit(ev.CardPlayed(seat=seat, card=CODES[card], auto=auto, premove=premove,
                              deadline=tx.play_deadline(s.hands[(seat + 1) & 3], trick, s.broken),
                              at=tx.at))
        return
    s = tx.emit(ev.CardPlayed(seat=seat, card=CODES[card], auto=auto, premove=premove,
                              at=tx.at))
    leader = s.leader
    winner = trick_winner(s.deck, trick, leader)
    trick_no = len(s.trick_winners) + 1
    deadline = tx.play_deadline(s.hands[winner], (), s.broken) if trick_no < 13 else 0
    tx.emit(ev.TrickWon(trick_no=trick_no, seat=winner,
                        cards=tuple([CODES[c] for c in in_seat_order(trick, leader)]),  # type: ignore[arg-type]
                        deadline=deadline, at=tx.at))
    if trick_no == 13:
        _score(tx)


def _score(tx: _Tx) -> None:
    s = tx.state
    r = s.rules
    assert r is not None
    teams = score_hand(r, s.bids, s.blind, s.tricks, s.scores, s.bags)
    s = tx.emit(ev.HandScored(hand_no=s.hand_no, tricks=s.tricks, teams=teams,  # type: ignore[arg-type]
                              at=tx.at))
    boston = next((t for t in (0, 1) if teams[t].boston), None)
    over, winner, reason = match_outcome(r, s.scores, s.hands_played, boston)
    if over:
        _end(tx, winner, reason)
    elif s.seed:
        _deal_from_seed(tx, (s.dealer + 1) % 4)


def _end(tx: _Tx, winner: int | None, reason: str, forfeited_by: int | None = None) -> None:
    s = tx.state
    tx.emit(ev.GameEnded(winner=winner, reason=reason, scores=s.scores, bags=s.bags,
                         hands_played=s.hands_played, players=s.players,  # type: ignore[arg-type]
                         forfeited_by=forfeited_by, seed=s.seed, rules=s.rules,
                         rated=s.rated, abandoned=tuple(seats_in(s.bots)),
                         bags_taken=_bags_taken(s), sealed=s.sealed,
                         deals=tuple((h.teams[0].delta, h.teams[1].delta) for h in s.sheet),
                         at=tx.at))


def _bags_taken(s: GameState) -> tuple[int, int]:
    """Bags each team took this game: the sheet's sum, since penalties empty ``bags``."""
    return (sum(h.teams[0].bags_gained for h in s.sheet),
            sum(h.teams[1].bags_gained for h in s.sheet))


# --- pre-moves ----------------------------------------------------------------------

def _set_premove(tx: _Tx, c: cmd.SetPremove) -> None:
    s = tx.state
    _check_seat(c.seat)
    _in_game(s, PLAY, PASSING, BIDDING)
    if not s.looked >> c.seat & 1:
        raise RuleError("cards_not_seen", f"seat {c.seat} has not looked at its cards")
    card = _parse_card(s, c.card)
    if not s.hands[c.seat] >> card & 1:
        raise RuleError("card_not_in_hand", f"seat {c.seat} does not hold {c.card.upper()}")
    if s.phase == PLAY and s.waiting >> c.seat & 1:
        _play_checked(tx, c.seat, card)
        return
    tx.emit(ev.PremoveSet(seat=c.seat, card=CODES[card], at=tx.at))


def _cancel_premove(tx: _Tx, c: cmd.CancelPremove) -> None:
    _check_seat(c.seat)
    if tx.state.premoves[c.seat] >= 0:
        tx.emit(ev.PremoveCancelled(seat=c.seat, at=tx.at))


def _premoves(tx: _Tx) -> None:
    """Play the locked card of the seat whose turn just came, if it is legal now."""
    while True:
        s = tx.state
        if s.premoves == NO_PREMOVES or s.phase != PLAY:
            return
        seat = s.waiting.bit_length() - 1
        card = s.premoves[seat]
        if card < 0:
            return
        assert s.rules is not None
        hand = s.hands[seat]
        problem = ("card_not_in_hand" if not hand >> card & 1
                   else why_illegal(s.deck, hand, s.trick, s.broken, card))
        if problem:
            tx.emit(ev.PremoveDropped(seat=seat, card=CODES[card], reason=problem,
                                      at=tx.at))
            return
        _record_play(tx, seat, card, auto=False, premove=True)


# --- clocks, leaving and coming back ------------------------------------------------

def _clock_expired(tx: _Tx, c: cmd.ClockExpired) -> None:
    s = tx.state
    _check_seat(c.seat)
    if s.phase not in (BIDDING, PASSING, PLAY) or not s.waiting >> c.seat & 1:
        raise RuleError("stale_clock", f"it is no longer seat {c.seat}'s turn")
    if c.at < s.deadlines[c.seat]:
        raise RuleError("stale_clock", f"seat {c.seat}'s deadline is {s.deadlines[c.seat]}")
    r = s.rules
    assert r is not None
    if s.bank[c.seat] > 0:
        tx.emit(ev.TimeBankUsed(seat=c.seat, blocks_left=s.bank[c.seat] - 1,
                                deadline=s.deadlines[c.seat] + r.turn_clocks.bank_block_ms,
                                at=tx.at))
        return
    if r.abandon == "forfeit" and not bot_held(s) >> c.seat & 1:
        _end(tx, 1 - (c.seat & 1), "forfeit", forfeited_by=c.seat)
        return
    # The seat's move is made for it, as the command says: checked like its own would be.
    if s.phase == BIDDING:
        if c.bid is None:
            raise _fallback_missing(c.seat, "bid")
        _check_bid(s, c.bid)
        _record_bid(tx, c.seat, c.bid, blind=False, auto=True)
    elif s.phase == PASSING:
        if c.cards is None:
            raise _fallback_missing(c.seat, "cards")
        _record_pass(tx, c.seat, _pass_mask(s, c.seat, c.cards), auto=True)
    else:
        if c.card is None:
            raise _fallback_missing(c.seat, "card")
        _play_checked(tx, c.seat, _parse_card(s, c.card), auto=True)


def _fallback_missing(seat: int, field: str) -> RuleError:
    return RuleError("fallback_missing",
                     f"seat {seat}'s time is up: the expiry must carry the {field} to play")


def _leave(tx: _Tx, c: cmd.LeaveSeat) -> None:
    s = tx.state
    _check_seat(c.seat)
    _in_game(s, DEALING, BIDDING, PASSING, PLAY)
    assert s.rules is not None
    if s.rules.abandon == "forfeit":
        _end(tx, 1 - (c.seat & 1), "forfeit", forfeited_by=c.seat)
    elif s.bots >> c.seat & 1:
        raise RuleError("seat_is_bot", f"a bot already plays seat {c.seat}")
    else:
        tx.emit(ev.SeatTakenByBot(seat=c.seat, reason="left", at=tx.at))


def _return(tx: _Tx, c: cmd.ReturnToSeat) -> None:
    s = tx.state
    _check_seat(c.seat)
    _in_game(s, DEALING, BIDDING, PASSING, PLAY)
    if not s.bots >> c.seat & 1:
        raise RuleError("not_a_bot_seat", f"seat {c.seat} is not played by a bot")
    tx.emit(ev.SeatReclaimed(seat=c.seat, at=tx.at))


_DECIDE: dict[type, Callable[[_Tx, Any], None]] = {
    cmd.StartGame: _start, cmd.DealHand: _deal, cmd.LookAtCards: _look,
    cmd.PlaceBid: _place_bid, cmd.BidBlindNil: _blind_nil, cmd.PassCards: _pass_cards,
    cmd.PlayCard: _play, cmd.SetPremove: _set_premove, cmd.CancelPremove: _cancel_premove,
    cmd.ClockExpired: _clock_expired, cmd.LeaveSeat: _leave, cmd.ReturnToSeat: _return,
}


def step(state: GameState, command: cmd.Command) -> tuple[GameState, list[ev.Event]]:
    """Decide ``command`` and return the state after its events, and the events."""
    tx = _Tx(state, command.at, [])
    _DECIDE[type(command)](tx, command)
    return tx.state, tx.events


def decide(state: GameState, command: cmd.Command) -> list[ev.Event]:
    return step(state, command)[1]
