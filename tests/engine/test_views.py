"""What each seat may see: its own hand, the public table, never another's secrets.

"You never see your partner's cards", secret bids "flip over together once all
four are in", a blind-nil seat's "cards are still face down", and the shuffle
seed is revealed only when the game ends.
"""

from __future__ import annotations

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import codes
from engine.decide import step
from engine.errors import RuleError
from engine.evolve import blind_nil_offered, fold
from engine.presets import PRESETS
from engine.state import GameState
from engine.views import operator_view, redact, view
from schemas import commands as cmd
from schemas import events as ev

from .helpers import CLASSIC, HOUSE, bid, deal, fill, legal, narrowed, play, rules
from .randomgame import play_game


def _json(x) -> str:
    return msgspec.json.encode(x).decode()


def test_secret_bids_hidden_until_reveal() -> None:
    """House bids are "secret, simultaneous": until all four are in, only the bidder
    sees its bid - in the view and in the event as delivered to each seat."""
    s = deal(HOUSE, fill(HOUSE))
    s, events = step(s, cmd.PlaceBid(seat=1, bid=4))
    placed = events[0]
    assert view(s, 1).bids[1] == 4
    for other in (0, 2, 3, None):
        assert view(s, other).bids[1] is None
        assert view(s, other).has_bid[1]
        assert narrowed(redact(placed, s, other), ev.BidPlaced).bid == -1
    assert narrowed(redact(placed, s, 1), ev.BidPlaced).bid == 4
    for seat, b in ((0, 2), (2, 3), (3, 1)):
        s = step(s, cmd.PlaceBid(seat=seat, bid=b))[0]
    assert s.revealed
    for viewer in (0, 1, 2, 3, None):
        assert view(s, viewer).bids == (2, 4, 3, 1)


def test_secret_blind_nil_hidden_until_reveal() -> None:
    """A secret blind nil is a secret bid too: nobody else learns it was blind."""
    s = deal(HOUSE, fill(HOUSE), scores=(0, 200))
    s, events = step(s, cmd.BidBlindNil(seat=2))
    for other in (0, 1, 3, None):
        assert view(s, other).blind[2] is False and view(s, other).bids[2] is None
        got = narrowed(redact(events[0], s, other), ev.BidPlaced)
        assert got.bid == -1 and got.blind is False
    assert view(s, 2).blind[2] is True


def test_sequential_bids_are_public_as_they_are_made() -> None:
    """Classic: "Later bidders get to hear the earlier bids and adjust"."""
    s = deal(CLASSIC, fill(CLASSIC), dealer=3)
    s = step(s, cmd.PlaceBid(seat=0, bid=5))[0]
    for viewer in (1, 2, 3, None):
        assert view(s, viewer).bids[0] == 5


def test_seat_sees_its_own_hand_and_not_the_others() -> None:
    """"You never see your partner's cards"."""
    hands = fill(CLASSIC)
    s = deal(CLASSIC, hands)
    for seat in range(4):
        v = view(s, seat)
        assert v.hand is not None and sorted(v.hand) == sorted(hands[seat])
        dealt = redact(ev.HandDealt(hand_no=1, dealer=3, hands=hands), s, seat)
        assert isinstance(dealt, ev.HandDealt)
        assert [bool(h) for h in dealt.hands] == [x == seat for x in range(4)]


def test_spectator_view_has_no_hand() -> None:
    """A spectator sees the table and no cards but those played."""
    hands = fill(CLASSIC)
    s = bid(deal(CLASSIC, hands), [3, 3, 3, 3])
    s = play(s, sorted(legal(s))[0])
    v = view(s, None)
    assert v.hand is None and v.legal_cards == () and v.legal_bids == ()
    text = _json(v)
    held = {c for h in s.hands for c in codes(h)}
    assert not any(f'"{c}"' in text for c in held)
    dealt = redact(ev.HandDealt(hand_no=1, dealer=3, hands=hands), s, None)
    assert isinstance(dealt, ev.HandDealt) and dealt.hands == ((),) * 4


def test_blind_nil_seat_sees_no_cards_until_it_looks() -> None:
    """The blind nil "offer appears at the deal while your cards are still face
    down": the seat's own view shows no cards until it looks (or bids)."""
    hands = fill(HOUSE)
    s = deal(HOUSE, hands, scores=(0, 100))
    v = view(s, 0)
    assert v.hand is None and not v.looked and v.blind_nil_offered
    assert view(s, 1).hand is not None  # its team leads: no offer, cards face up
    dealt = redact(ev.HandDealt(hand_no=1, dealer=3, hands=hands), s, 0)
    assert isinstance(dealt, ev.HandDealt) and dealt.hands == ((),) * 4
    s = step(s, cmd.LookAtCards(seat=0))[0]
    mine = view(s, 0).hand
    assert mine is not None and sorted(mine) == sorted(hands[0])
    assert not view(s, 0).blind_nil_offered
    s = step(s, cmd.PlaceBid(seat=2, bid=3))[0]
    mine = view(s, 2).hand
    assert mine is not None and sorted(mine) == sorted(hands[2])


def test_seed_hidden_until_game_ends() -> None:
    """"the seed itself is revealed when the game ends": its hash is public from the
    first event, the seed in no view or delivered event before the end."""
    steps = play_game(3, rules("classic", target=150))
    seed = narrowed(steps[0][1][0], ev.GameStarted).seed
    assert seed
    for state, events in steps[:-1]:
        for viewer in (0, 1, 2, 3, None):
            assert seed not in _json(view(state, viewer))
            for e in events:
                if not isinstance(e, ev.GameEnded):
                    assert seed not in _json(redact(e, state, viewer))
    final = steps[-1][0]
    assert final.phase == "over"
    assert view(final, None).seed == seed and view(final, 2).seed == seed
    assert view(steps[0][0], 0).seed_hash == narrowed(steps[0][1][0], ev.GameStarted).seed_hash


def test_operator_view_shows_every_hand() -> None:
    """Operators debug games by replaying them: their view has every hand face up."""
    hands = fill(HOUSE)
    s = deal(HOUSE, hands)
    ov = operator_view(s)
    assert [sorted(h) for h in ov.hands] == [sorted(h) for h in hands]
    assert ov.table.hand is None


def test_error_messages_name_no_other_seats_cards() -> None:
    """No error message ever contains another seat's cards."""
    hands = fill(CLASSIC)
    s = bid(deal(CLASSIC, hands), [3, 3, 3, 3])
    for seat in range(4):
        others = {c for x in range(4) if x != seat for c in codes(s.hands[x])}
        for c in [*hands[seat], "AS", "2H"]:
            for command in (cmd.PlayCard(seat=seat, card=c), cmd.SetPremove(seat=seat, card=c)):
                try:
                    step(s, command)
                except RuleError as e:
                    assert not any(o in e.message for o in others - {c}), e.message


def test_premoves_are_seen_only_by_their_seat() -> None:
    """A locked card is the seat's own secret until it is played."""
    s = bid(deal(CLASSIC, fill(CLASSIC)), [3, 3, 3, 3])
    card = codes(s.hands[2])[0]
    s, events = step(s, cmd.SetPremove(seat=2, card=card))
    assert redact(events[0], s, 2) == events[0]
    for other in (0, 1, 3, None):
        assert redact(events[0], s, other) is None
        assert view(s, other).premove is None
    assert view(s, 2).premove == card


def test_views_of_a_new_game_are_empty() -> None:
    """Before the start there is nothing to see, for seats and spectators alike."""
    v = view(GameState(), None)
    assert v.phase == "new" and v.hand is None


def _answer(state: GameState, command: cmd.SetPremove):
    """What a seat learns from a command: the refusal code, or that it was accepted and
    whether blind nil is still open to it."""
    try:
        after, _ = step(state, command)
    except RuleError as e:
        return ("refused", e.code)
    return ("accepted", blind_nil_offered(after, command.seat))


def test_seat_that_has_not_looked_cannot_probe_its_cards_with_a_premove() -> None:
    """A seat whose cards are still face down (blind nil open) learns nothing about
    them from locking a pre-move: the answer is the same for a card it holds and one
    it does not."""
    hands = fill(HOUSE)
    s = deal(HOUSE, hands, scores=(0, 100))
    assert view(s, 0).blind_nil_offered
    held = _answer(s, cmd.SetPremove(seat=0, card=hands[0][0]))
    not_held = _answer(s, cmd.SetPremove(seat=0, card=hands[1][0]))
    assert held == not_held


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), preset=st.sampled_from(sorted(PRESETS)))
def test_the_score_sheet_carries_every_hand_s_bids_for_a_view_built_late(
        seed: int, preset: str) -> None:
    """A reloaded player or a spectator who joins mid-game sees the sheet of one who
    watched from the start: each scored hand with each seat's bid and blind nil."""
    events = [e for _, out in play_game(seed, PRESETS[preset], max_hands=4) for e in out]
    bids: dict[int, tuple[int, bool]] = {}
    expected = []
    for e in events:
        if isinstance(e, ev.BidPlaced):
            bids[e.seat] = (e.bid, e.blind)
        elif isinstance(e, ev.HandScored):
            expected.append((e.hand_no, tuple(bids[s][0] for s in range(4)),
                             tuple(bids[s][1] for s in range(4))))
            bids = {}
    late = fold(events)
    for seat in (0, 1, 2, 3, None):
        sheet = view(late, seat).sheet
        assert [(h.hand_no, h.bids, h.blind) for h in sheet] == expected


@settings(max_examples=10, deadline=None)
@given(preset=st.sampled_from(sorted(PRESETS)), seed=st.integers(0, 2**32))
def test_a_seat_gets_the_spectators_turn_itself_exactly_when_it_has_no_move(
        preset: str, seed: int) -> None:
    """``turn(state, seat, public)`` hands back ``public`` itself for a seat with no move
    of its own (the fan-out shares the spectator's frame by that identity) and the
    seat's own turn otherwise."""
    from engine.evolve import evolve
    from engine.views import turn
    from tests.engine.helpers import bot_game

    state, shared, own = GameState(), 0, 0
    for event in bot_game(PRESETS[preset], seed):
        state = evolve(state, event)
        public = turn(state, None)
        for seat in range(4):
            alone, given_public = turn(state, seat), turn(state, seat, public)
            assert given_public == alone
            if alone == public:
                assert given_public is public
                shared += 1
            else:
                assert given_public is not public
                own += 1
    assert shared and own


def test_no_event_type_that_redact_changes_or_withholds_is_counted_public() -> None:
    """``redact`` hands the events of its public types to everyone untouched without
    looking further: none may be a type it changes for some seat or hides."""
    from engine.views import _PUBLIC

    private = {ev.GameStarted, ev.HandDealt, ev.CardsLooked, ev.BidPlaced, ev.CardsPassed,
               ev.CardsExchanged, ev.PremoveSet, ev.PremoveCancelled, ev.PremoveDropped,
               ev.GameEnded}
    assert not _PUBLIC & private
    every = {t for t in vars(ev).values() if isinstance(t, type) and issubclass(t, ev.Event)
             and t is not ev.Event}
    assert _PUBLIC | private == every  # a new event type is sorted into one or the other
