"""Trick play: a card, the trick it completes, the hand's score and the match's end;
and the pre-moves, a card locked in before its seat's turn and played when it comes."""

from __future__ import annotations

from typing import Any

from engine.cards import CARD_IDS, CODES, TRUMP
from engine.dealing import deal_from_seed
from engine.errors import RuleError
from engine.play import in_seat_order, legal_mask, trick_winner, why_illegal
from engine.scoring import match_outcome, score_hand
from engine.state import BIDDING, PASSING, PLAY, GameState, seats_in
from engine.state import NO_SEATS as NO_PREMOVES
from engine.transaction import Tx, check_seat, in_game, parse_card
from schemas import commands as cmd
from schemas import events as ev

SUIT_NAMES = ("spades", "hearts", "diamonds", "clubs")


def play(tx: Tx, c: cmd.PlayCard) -> None:
    # The commonest command: the checks of play_checked, inlined.
    s = tx.state
    seat = c.seat
    if s.phase != PLAY:
        check_seat(seat)
        in_game(s, PLAY)
    if not (seat in (0, 1, 2, 3) and s.waiting >> seat & 1):
        check_seat(seat)
        raise RuleError("not_your_turn", f"it is seat {s.waiting.bit_length() - 1}'s turn to play")
    hand = s.hands[seat]
    try:
        card = CARD_IDS.get(c.card)  # a canonical code, the common case
    except TypeError:  # not even a string
        card = None
    if card is None or not hand >> card & 1:  # the careful parser says what it is
        card = parse_card(s, c.card)
        if not hand >> card & 1:
            raise RuleError("card_not_in_hand", f"seat {seat} does not hold {CODES[card]}")
    d = s.deck
    if not legal_mask(d, hand, s.trick, s.broken) >> card & 1:
        problem = why_illegal(d, hand, s.trick, s.broken, card)
        raise RuleError(problem, _illegal_message(problem, seat, d, s.trick))
    record_play(tx, seat, card, False, False)
    if tx.state.premoves != NO_PREMOVES:
        premoves(tx)


def play_checked(tx: Tx, seat: int, card: int, auto: bool = False,
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
    record_play(tx, seat, card, auto, premove)
    premoves(tx)


def _illegal_message(code: str, seat: int, d: Any, trick: tuple[int, ...]) -> str:
    if code == "must_follow_suit":
        suit = SUIT_NAMES[d.suit_of[trick[0]]]
        what = "a trump" if d.suit_of[trick[0]] == TRUMP else f"a card of {suit}"
        return f"seat {seat} holds {what} and must follow {suit}"
    return f"seat {seat} cannot lead a trump before trumps are broken"


def record_play(tx: Tx, seat: int, card: int, auto: bool, premove: bool) -> None:
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


def _score(tx: Tx) -> None:
    s = tx.state
    r = s.rules
    assert r is not None
    teams = score_hand(r, s.bids, s.blind, s.tricks, s.scores, s.bags)
    s = tx.emit(ev.HandScored(hand_no=s.hand_no, tricks=s.tricks, teams=teams,  # type: ignore[arg-type]
                              at=tx.at))
    boston = next((t for t in (0, 1) if teams[t].boston), None)
    over, winner, reason = match_outcome(r, s.scores, s.hands_played, boston)
    if over:
        end(tx, winner, reason)
    elif s.seed:
        deal_from_seed(tx, (s.dealer + 1) % 4)


def end(tx: Tx, winner: int | None, reason: str, forfeited_by: int | None = None) -> None:
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

def set_premove(tx: Tx, c: cmd.SetPremove) -> None:
    s = tx.state
    check_seat(c.seat)
    in_game(s, PLAY, PASSING, BIDDING)
    if not s.looked >> c.seat & 1:
        raise RuleError("cards_not_seen", f"seat {c.seat} has not looked at its cards")
    card = parse_card(s, c.card)
    if not s.hands[c.seat] >> card & 1:
        raise RuleError("card_not_in_hand", f"seat {c.seat} does not hold {c.card.upper()}")
    if s.phase == PLAY and s.waiting >> c.seat & 1:
        play_checked(tx, c.seat, card)
        return
    tx.emit(ev.PremoveSet(seat=c.seat, card=CODES[card], at=tx.at))


def cancel_premove(tx: Tx, c: cmd.CancelPremove) -> None:
    check_seat(c.seat)
    if tx.state.premoves[c.seat] >= 0:
        tx.emit(ev.PremoveCancelled(seat=c.seat, at=tx.at))


def premoves(tx: Tx) -> None:
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
        record_play(tx, seat, card, auto=False, premove=True)
