"""Clocks, pre-moves and leaving a seat, as the house and club texts describe them.

House: "Bidding: 30 seconds, everybody at once. Playing a card: 15 seconds, or 5
when you have only one legal card. Time bank: two extra 15-second blocks per
hand, spent automatically when your clock runs out." "If your clock runs out,
the game locks in the bid its bot would have made for your hand." Times are
command inputs in milliseconds; every turn event carries its deadline.
"""

from __future__ import annotations

from engine import bots
from engine.bots import basic
from engine.cards import card_id, code, codes
from engine.decide import step
from engine.state import GameState
from engine.views import view
from schemas import commands as cmd
from schemas import events as ev

from .helpers import (
    CLASSIC,
    CLUB,
    HOUSE,
    bid,
    cards,
    deal,
    fill,
    narrowed,
    play,
    play_out,
    refusal,
    rules,
    turn,
)

T0 = 1_000_000


def _one_legal_deal():
    """Seat 0 leads a heart; seat 1 holds exactly one heart."""
    return (cards("3H 4H 5H 6H 7H 8H 9H TH JH QH KH 3D 4D"),
            cards("AH 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC"),
            cards("5D 6D 7D 8D 9D TD JD QD KD AD 2D 2S 3S"),
            cards("4S 5S 6S 7S 8S 9S TS JS QS KS AS BJ LJ"))


def test_clock_deadline_carried_in_events() -> None:
    """The deal starts everyone's 30-second bid clock: the event carries the deadline,
    computed from the command's time, and the view shows it."""
    s, events = step(GameState(),
                     cmd.StartGame(rules=HOUSE, seed="ab" * 32, at=T0))
    dealt = next(e for e in events if isinstance(e, ev.HandDealt))
    assert dealt.deadline == T0 + 30_000
    assert s.deadlines == (T0 + 30_000,) * 4


def test_sequential_bid_clock_passes_to_the_next_bidder() -> None:
    """Classic bids go round one at a time: each bid starts the next bidder's clock."""
    s = deal(CLASSIC, fill(CLASSIC), dealer=3, at=T0)
    assert s.deadlines[0] == T0 + 30_000 and s.waiting == 1
    s, events = step(s, cmd.PlaceBid(seat=0, bid=3, at=T0 + 7_000))
    assert narrowed(events[0], ev.BidPlaced).deadline == T0 + 37_000
    assert s.deadlines[1] == T0 + 37_000


def test_play_clock_is_15_seconds() -> None:
    """"Playing a card: 15 seconds": the reveal starts the leader's play clock."""
    s = deal(HOUSE, _one_legal_deal(), dealer=3, at=T0)
    for seat in (1, 2, 3):
        s = step(s, cmd.PlaceBid(seat=seat, bid=3, at=T0))[0]
    s, events = step(s, cmd.PlaceBid(seat=0, bid=3, at=T0 + 5_000))
    revealed = next(e for e in events if isinstance(e, ev.BidsRevealed))
    assert revealed.deadline == T0 + 20_000 and s.deadlines[0] == T0 + 20_000


def test_single_legal_card_gives_the_5_second_clock() -> None:
    """"or 5 when you have only one legal card"."""
    s = bid(deal(HOUSE, _one_legal_deal(), dealer=3, at=T0), [3, 3, 3, 3], at=T0)
    s, events = step(s, cmd.PlayCard(seat=0, card="3H", at=T0 + 2_000))
    assert narrowed(events[-1], ev.CardPlayed).deadline == T0 + 7_000
    assert s.deadlines[1] == T0 + 7_000
    s, events = step(s, cmd.PlayCard(seat=1, card="AH", at=T0 + 3_000))
    # seat 2 is void: many legal cards
    assert narrowed(events[-1], ev.CardPlayed).deadline == T0 + 18_000


def test_clock_expired_spends_the_time_bank_first_then_the_bot_bids() -> None:
    """The bank's two 15-second blocks are "spent automatically when your clock runs
    out"; when they are gone, "the game locks in the bid its bot would have made"."""
    s = deal(HOUSE, fill(HOUSE), at=T0)
    deadline = T0 + 30_000
    for left in (1, 0):
        s, events = step(s, cmd.ClockExpired(seat=2, at=deadline))
        assert events == [ev.TimeBankUsed(seat=2, blocks_left=left, deadline=deadline + 15_000,
                                          at=deadline)]
        deadline += 15_000
        assert s.deadlines[2] == deadline and s.bank[2] == left
    expected = basic.choose_bid(s, 2)
    s, events = step(s, bots.timeout_command(s, 2, at=deadline))
    assert isinstance(events[0], ev.BidPlaced)
    assert (events[0].seat, events[0].bid, events[0].auto) == (2, expected, True)
    assert s.bids[2] == expected


def test_clock_expired_in_play_the_bot_plays_a_legal_card() -> None:
    """When a player's play clock and bank run out, the bot plays for the seat."""
    s = bid(deal(HOUSE, _one_legal_deal(), dealer=3, at=T0), [3, 3, 3, 3], at=T0)
    deadline = s.deadlines[0]
    for _ in range(2):
        s = step(s, cmd.ClockExpired(seat=0, at=deadline))[0]
        deadline = s.deadlines[0]
    expected = code(basic.choose_card(s, 0))
    s, events = step(s, bots.timeout_command(s, 0, at=deadline))
    played = events[0]
    assert isinstance(played, ev.CardPlayed) and played.auto and played.card == expected
    assert card_id(expected) in {card_id(c) for c in _one_legal_deal()[0][:11]}  # a heart
    assert turn(s) == 1


def test_stale_clock_expiry_is_refused() -> None:
    """An expiry that comes too early, or for a seat whose turn has passed, changes
    nothing: the platform's timer raced a move."""
    s = deal(CLASSIC, fill(CLASSIC), dealer=3, at=T0)
    assert refusal(s, cmd.ClockExpired(seat=0, at=T0 + 29_999)) == "stale_clock"
    assert refusal(s, cmd.ClockExpired(seat=1, at=T0 + 60_000)) == "stale_clock"
    s = step(s, cmd.PlaceBid(seat=0, bid=2, at=T0 + 1_000))[0]
    assert refusal(s, cmd.ClockExpired(seat=0, at=T0 + 30_000)) == "stale_clock"
    assert refusal(s, cmd.ClockExpired(seat=1, at=T0 + 30_999)) == "stale_clock"


def test_the_move_for_a_timed_out_seat_comes_with_the_command() -> None:
    """The rules never ask a bot (issue 12): the expiry carries the seat's move, the
    engine checks it like the seat's own and records it; without one it is refused."""
    s = bid(deal(HOUSE, _one_legal_deal(), dealer=3, at=T0), [3, 3, 3, 3], at=T0)
    for _ in range(2):
        s = step(s, cmd.ClockExpired(seat=0, at=s.deadlines[0]))[0]
    deadline = s.deadlines[0]
    assert refusal(s, cmd.ClockExpired(seat=0, at=deadline)) == "fallback_missing"
    assert refusal(s, cmd.ClockExpired(seat=0, at=deadline, card="AS")) == "card_not_in_hand"
    assert refusal(s, cmd.ClockExpired(seat=0, at=deadline, card="2C")) == "card_not_in_deck"
    s, events = step(s, cmd.ClockExpired(seat=0, at=deadline, card="3H"))
    played = narrowed(events[0], ev.CardPlayed)
    assert played == ev.CardPlayed(seat=0, card="3H", auto=True,
                                   deadline=played.deadline, at=deadline)
    for _ in range(2):
        s = step(s, cmd.ClockExpired(seat=1, at=s.deadlines[1]))[0]
    assert refusal(s, cmd.ClockExpired(seat=1, at=s.deadlines[1], card="3C")) == \
        "must_follow_suit"
    d = deal(CLASSIC, fill(CLASSIC), dealer=3, at=T0)
    for _ in range(2):
        d = step(d, cmd.ClockExpired(seat=0, at=d.deadlines[0]))[0]
    assert refusal(d, cmd.ClockExpired(seat=0, at=d.deadlines[0], bid=14)) == "bid_out_of_range"
    assert step(d, cmd.ClockExpired(seat=0, at=d.deadlines[0], bid=5))[0].bids[0] == 5


def test_a_timed_out_pass_is_checked_like_the_seats_own() -> None:
    """In the blind-nil exchange the expiry carries the cards to pass."""
    s = _passing_state()
    for _ in range(2):
        s = step(s, cmd.ClockExpired(seat=2, at=s.deadlines[2]))[0]
    deadline = s.deadlines[2]
    assert refusal(s, cmd.ClockExpired(seat=2, at=deadline)) == "fallback_missing"
    assert refusal(s, cmd.ClockExpired(seat=2, at=deadline, cards=())) == "wrong_pass_count"
    held = codes(s.hands[2])[0]
    s, events = step(s, cmd.ClockExpired(seat=2, at=deadline, cards=(held,)))
    assert events[0] == ev.CardsPassed(seat=2, cards=(held,), auto=True, at=deadline)


def test_time_bank_is_two_blocks_per_hand() -> None:
    """"two extra 15-second blocks per hand": spent blocks come back at the next deal."""
    s = deal(CLASSIC, fill(CLASSIC), dealer=3, at=T0)
    assert s.bank == (2, 2, 2, 2)
    s = step(s, cmd.ClockExpired(seat=0, at=T0 + 30_000))[0]
    assert s.bank == (1, 2, 2, 2)
    s = bid(s, [3, 3, 3, 3])
    s, _ = play_out(s)
    s = step(s, cmd.DealHand(dealer=0, hands=fill(CLASSIC), at=T0))[0]
    assert s.bank == (2, 2, 2, 2)


def test_blitz_has_shorter_clocks() -> None:
    """"Blitz: shorter clocks, if the host switches it on"."""
    r = rules("house", blitz=True)
    s = deal(r, fill(r), at=T0)
    assert T0 < s.deadlines[0] < T0 + 30_000
    assert r.turn_clocks.play_ms < HOUSE.turn_clocks.play_ms
    assert s.bank[0] <= 2


def test_premove_played_when_the_turn_comes_if_legal() -> None:
    """"lock a card early: drag it to the table before your turn and it plays the
    moment your turn comes"."""
    s = bid(deal(HOUSE, _one_legal_deal(), dealer=3), [3, 3, 3, 3])
    s, events = step(s, cmd.SetPremove(seat=1, card="AH"))
    assert events == [ev.PremoveSet(seat=1, card="AH")]
    s, events = step(s, cmd.PlayCard(seat=0, card="3H"))
    assert [type(e) for e in events] == [ev.CardPlayed, ev.CardPlayed]
    premoved = narrowed(events[1], ev.CardPlayed)
    assert (premoved.seat, premoved.card, premoved.premove) == (1, "AH", True)
    assert turn(s) == 2 and s.premoves[1] == -1


def test_premove_dropped_with_reason_if_illegal() -> None:
    """"If the suit led makes it illegal, it bounces back to your hand" - and the seat
    is told why."""
    s = bid(deal(HOUSE, _one_legal_deal(), dealer=3), [3, 3, 3, 3])
    s = step(s, cmd.SetPremove(seat=1, card="KC"))[0]
    s, events = step(s, cmd.PlayCard(seat=0, card="3H"))
    assert events[-1] == ev.PremoveDropped(seat=1, card="KC", reason="must_follow_suit")
    assert turn(s) == 1 and s.hands[1] >> card_id("KC") & 1 and s.premoves[1] == -1
    assert step(s, cmd.PlayCard(seat=1, card="AH"))[0].trick


def test_premove_chain_plays_several_seats_in_one_command() -> None:
    """Locked cards of several seats all play as their turns come."""
    s = bid(deal(HOUSE, _one_legal_deal(), dealer=3), [3, 3, 3, 3])
    s = step(s, cmd.SetPremove(seat=1, card="AH"))[0]
    s = step(s, cmd.SetPremove(seat=2, card="5D"))[0]
    s, events = step(s, cmd.PlayCard(seat=0, card="3H"))
    assert [e.seat for e in events if isinstance(e, ev.CardPlayed)] == [0, 1, 2]
    assert turn(s) == 3


def test_premove_on_own_turn_plays_at_once_and_can_be_cancelled() -> None:
    """A card locked when it is already the seat's turn is simply played; a locked card
    can be taken back before the turn comes."""
    s = bid(deal(HOUSE, _one_legal_deal(), dealer=3), [3, 3, 3, 3])
    s2, events = step(s, cmd.SetPremove(seat=0, card="4H"))
    assert isinstance(events[0], ev.CardPlayed) and events[0].card == "4H"
    s = step(s, cmd.SetPremove(seat=1, card="AH"))[0]
    s, events = step(s, cmd.CancelPremove(seat=1))
    assert events == [ev.PremoveCancelled(seat=1)] and s.premoves[1] == -1
    s, events = step(s, cmd.PlayCard(seat=0, card="3H"))
    assert len(events) == 1 and turn(s) == 1
    assert refusal(s2, cmd.SetPremove(seat=2, card="AH")) == "card_not_in_hand"


def test_leaving_a_house_table_a_bot_takes_the_seat() -> None:
    """"any seat nobody takes is filled by a bot": a player who leaves is replaced by
    a bot that acts when the seat's clock runs out, and may come back."""
    s = deal(HOUSE, fill(HOUSE), at=T0)
    s, events = step(s, cmd.LeaveSeat(seat=1, at=T0))
    assert events == [ev.SeatTakenByBot(seat=1, reason="left", at=T0)]
    assert s.bots == 0b0010 and s.phase == "bidding"
    assert refusal(s, cmd.LeaveSeat(seat=1)) == "seat_is_bot"
    at = T0 + 30_000
    while s.bids[1] < 0:
        s, events = step(s, bots.timeout_command(s, 1, at=at))
        at = max(at, s.deadlines[1])
    assert narrowed(events[0], ev.BidPlaced).auto
    s, events = step(s, cmd.ReturnToSeat(seat=1))
    assert events[0] == ev.SeatReclaimed(seat=1) and s.bots == 0
    assert refusal(s, cmd.ReturnToSeat(seat=1)) == "not_a_bot_seat"


def test_club_leaving_forfeits_the_match_and_the_others_win() -> None:
    """Club: "Leaving a game in progress ... is a forfeit by that player (in a pairs
    game, by their pair too) and ends the game for the whole table. The others win"."""
    for seat in range(4):
        s = bid(deal(CLUB, fill(CLUB), dealer=3), [3, 3, 3, 3])
        s, events = step(s, cmd.LeaveSeat(seat=seat))
        end = events[-1]
        assert isinstance(end, ev.GameEnded)
        assert (end.winner, end.reason, end.forfeited_by) == (1 - seat % 2, "forfeit", seat)
        assert s.phase == "over"
        assert refusal(s, cmd.PlayCard(seat=turn(s) if s.waiting else 0, card="2C")) == \
            "game_over"


def test_club_running_out_of_time_is_a_forfeit() -> None:
    """Club: "running out of time, is a forfeit by that player"."""
    s = deal(CLUB, fill(CLUB), dealer=3, at=T0)
    s, events = step(s, cmd.ClockExpired(seat=0, at=T0 + 30_000))
    assert isinstance(events[-1], ev.GameEnded)
    assert (events[-1].winner, events[-1].forfeited_by) == (1, 0)


def test_a_seat_a_bot_holds_from_the_start_never_forfeits_on_time() -> None:
    """A ``bot:`` player in ``GameStarted`` is a bot seat: under ``abandon: forfeit`` its
    clock running out makes the move the expiry carries, as for a seat its player left;
    only a person's seat forfeits."""
    players = ("bot:basic", "ann", "bot:basic", "bob")
    s = step(GameState(), cmd.StartGame(rules=CLUB, players=players, at=T0))[0]
    s = step(s, cmd.DealHand(dealer=3, hands=fill(CLUB), at=T0))[0]
    s, events = step(s, bots.timeout_command(s, 0, at=T0 + 30_000))
    assert not any(isinstance(e, ev.GameEnded) for e in events)
    placed = events[0]
    assert isinstance(placed, ev.BidPlaced) and placed.seat == 0 and placed.auto
    s, events = step(s, cmd.ClockExpired(seat=1, at=s.deadlines[1]))
    assert isinstance(events[-1], ev.GameEnded) and events[-1].forfeited_by == 1


def test_house_running_out_of_time_is_not_a_forfeit() -> None:
    """House: the bot moves for a seat whose time ran out; the match goes on."""
    s = bid(deal(HOUSE, _one_legal_deal(), dealer=3, at=T0), [3, 3, 3, 3], at=T0)
    for _ in range(3):
        s, events = step(s, bots.timeout_command(s, turn(s), at=s.deadlines[turn(s)]))
    assert s.phase == "play" and not any(isinstance(e, ev.GameEnded) for e in events)
    s = play(s, "AH")
    assert len(s.trick) == 2


def _passing_state(at: int = T0):
    r = rules("house", blind_nil_pass=1)
    s = deal(r, fill(r), dealer=3, scores=(0, 200), at=at)
    s = step(s, cmd.BidBlindNil(seat=0, at=at))[0]
    for seat, b in ((1, 3), (2, 4), (3, 3)):
        s = step(s, cmd.PlaceBid(seat=seat, bid=b, at=at))[0]
    return s


def test_blind_nil_exchange_has_its_own_clock_and_view() -> None:
    """The blind-nil exchange is a phase of its own: the two partners are on the clock,
    their views say how many cards to pass, and when a clock runs out (bank spent)
    the bot passes for the seat."""
    s = _passing_state()
    assert s.phase == "passing" and s.waiting == 0b0101
    assert view(s, 0).pass_count == 1 and view(s, 2).pass_count == 1
    assert view(s, 1).pass_count == 0
    deadline = s.deadlines[2]
    assert deadline == T0 + 30_000
    for _ in range(2):
        s = step(s, cmd.ClockExpired(seat=2, at=deadline))[0]
        deadline = s.deadlines[2]
    s, events = step(s, bots.timeout_command(s, 2, at=deadline))
    assert isinstance(events[0], ev.CardsPassed) and events[0].auto
    assert len(events[0].cards) == 1 and s.waiting == 0b0001


def test_premove_of_a_card_passed_away_is_dropped() -> None:
    """A card locked before the exchange and then given to the partner is no longer
    the seat's to play: it is dropped, with the reason."""
    s = _passing_state()
    leader_card = codes(s.hands[0])[0]
    s = step(s, cmd.SetPremove(seat=0, card=leader_card))[0]
    s = step(s, cmd.PassCards(seat=0, cards=(leader_card,)))[0]
    s, events = step(s, cmd.PassCards(seat=2, cards=(codes(s.hands[2])[0],)))
    dropped = [e for e in events if isinstance(e, ev.PremoveDropped)]
    assert [(e.seat, e.card, e.reason) for e in dropped] == [(0, leader_card,
                                                              "card_not_in_hand")]
    assert turn(s) == 0
