"""``decide(state, command) -> events``: the rules of Spades, one function per command.

``step`` is the same decision returning the state after the events too, which
is what a game worker needs: the events are evolved as they are produced, so
a trick, the hand's score and the next deal come out of one card in order.
Rule violations raise ``RuleError`` before anything is produced.

The commands of each part of a hand live in a module of their own (``dealing``,
``bidding``, ``trickplay``); here are the dispatch and the commands that cut across
the phases: a clock that ran out, a seat left and taken back.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine import bidding, dealing, trickplay
from engine.bidding import check_bid, pass_mask, record_bid, record_pass
from engine.errors import RuleError
from engine.state import BIDDING, DEALING, PASSING, PLAY, GameState, bot_held
from engine.transaction import Tx, check_seat, in_game, parse_card
from engine.trickplay import end, play_checked
from schemas import commands as cmd
from schemas import events as ev


def _clock_expired(tx: Tx, c: cmd.ClockExpired) -> None:
    s = tx.state
    check_seat(c.seat)
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
        end(tx, 1 - (c.seat & 1), "forfeit", forfeited_by=c.seat)
        return
    # The seat's move is made for it, as the command says: checked like its own would be.
    if s.phase == BIDDING:
        if c.bid is None:
            raise _fallback_missing(c.seat, "bid")
        check_bid(s, c.bid)
        record_bid(tx, c.seat, c.bid, blind=False, auto=True)
    elif s.phase == PASSING:
        if c.cards is None:
            raise _fallback_missing(c.seat, "cards")
        record_pass(tx, c.seat, pass_mask(s, c.seat, c.cards), auto=True)
    else:
        if c.card is None:
            raise _fallback_missing(c.seat, "card")
        play_checked(tx, c.seat, parse_card(s, c.card), auto=True)


def _fallback_missing(seat: int, field: str) -> RuleError:
    return RuleError("fallback_missing",
                     f"seat {seat}'s time is up: the expiry must carry the {field} to play")


def _leave(tx: Tx, c: cmd.LeaveSeat) -> None:
    s = tx.state
    check_seat(c.seat)
    in_game(s, DEALING, BIDDING, PASSING, PLAY)
    assert s.rules is not None
    if s.rules.abandon == "forfeit":
        end(tx, 1 - (c.seat & 1), "forfeit", forfeited_by=c.seat)
    elif s.bots >> c.seat & 1:
        raise RuleError("seat_is_bot", f"a bot already plays seat {c.seat}")
    else:
        tx.emit(ev.SeatTakenByBot(seat=c.seat, reason="left", at=tx.at))


def _return(tx: Tx, c: cmd.ReturnToSeat) -> None:
    s = tx.state
    check_seat(c.seat)
    in_game(s, DEALING, BIDDING, PASSING, PLAY)
    if not s.bots >> c.seat & 1:
        raise RuleError("not_a_bot_seat", f"seat {c.seat} is not played by a bot")
    tx.emit(ev.SeatReclaimed(seat=c.seat, at=tx.at))


_DECIDE: dict[type, Callable[[Tx, Any], None]] = {
    cmd.StartGame: dealing.start, cmd.DealHand: dealing.deal, cmd.LookAtCards: bidding.look,
    cmd.PlaceBid: bidding.place_bid, cmd.BidBlindNil: bidding.blind_nil,
    cmd.PassCards: bidding.pass_cards, cmd.PlayCard: trickplay.play,
    cmd.SetPremove: trickplay.set_premove, cmd.CancelPremove: trickplay.cancel_premove,
    cmd.ClockExpired: _clock_expired, cmd.LeaveSeat: _leave, cmd.ReturnToSeat: _return,
}


def step(state: GameState, command: cmd.Command) -> tuple[GameState, list[ev.Event]]:
    """Decide ``command`` and return the state after its events, and the events."""
    tx = Tx(state, command.at, [])
    _DECIDE[type(command)](tx, command)
    return tx.state, tx.events


def decide(state: GameState, command: cmd.Command) -> list[ev.Event]:
    return step(state, command)[1]
