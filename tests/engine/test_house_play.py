"""The house rules text (000), the deck and the play of the tricks.

Each test quotes the rule it checks. The house deck is "jokers and deuces":
"Take out the 2♥ (two of hearts) and 2♣ (two of clubs), then add both jokers",
and the four cards at the top all count as spades.
"""

from __future__ import annotations

from itertools import pairwise

import pytest

from engine.cards import card_id, code, deck
from engine.play import trick_winner
from schemas import commands as cmd
from schemas import events as ev

from .helpers import (
    CLASSIC,
    HOUSE,
    bid,
    cards,
    deal,
    fill,
    legal,
    narrowed,
    play,
    play_events,
    play_out,
    refusal,
    rules,
    start,
    step,
    turn,
)

LADDER = ("BJ", "LJ", "2D", "2S", "AS", "KS", "QS", "JS", "TS", "9S", "8S", "7S", "6S",
          "5S", "4S", "3S")


def _winner(deck_name: str, trick: str, leader: int = 0, order: str = "diamond_high") -> int:
    d = deck(deck_name, order)
    return trick_winner(d, tuple(card_id(c) for c in trick.split()), leader)


def _in_play(r, hands, dealer=3, bids=(3, 3, 3, 3)):
    return bid(deal(r, hands, dealer), bids)


def test_jokers_and_deuces_deck_is_52_cards_without_two_of_hearts_and_clubs() -> None:
    """"Take out the 2♥ (two of hearts) and 2♣ (two of clubs), then add both jokers"."""
    d = deck("jokers_deuces")
    held = {code(c) for c in d.cards}
    assert len(held) == 52
    assert {"BJ", "LJ"} <= held
    assert not {"2H", "2C"} & held


def test_jokers_and_deuces_suits_hold_12_12_12_and_16_trumps() -> None:
    """"That leaves diamonds with 12 cards (A♦ down to 3♦), hearts with 12 (A♥ to 3♥),
    clubs with 12 (A♣ to 3♣) and the trump suit with 16"."""
    d = deck("jokers_deuces")
    sizes = [m.bit_count() for m in d.suit_mask]
    assert sizes == [16, 12, 12, 12]  # trumps, hearts, diamonds, clubs
    assert {code(c) for c in range(54) if d.trump_mask >> c & 1} == set(LADDER)


@pytest.mark.parametrize("higher,lower", list(pairwise(LADDER)))
def test_jokers_and_deuces_ladder_each_trump_beats_the_next(higher: str, lower: str) -> None:
    """"Big Joker, the highest card in the deck / Little Joker / 2♦ / 2♠ / A♠, then K♠,
    Q♠, J♠, 10♠ and so on down to 3♠", whichever is played first."""
    assert _winner("jokers_deuces", f"{lower} {higher} 3H 4H") == 1
    assert _winner("jokers_deuces", f"{higher} {lower} 3H 4H") == 0


def test_jokers_and_deuces_ladder_big_joker_beats_little_joker() -> None:
    """"Big Joker, the highest card in the deck": played after the Little Joker on a
    heart lead, it takes the trick."""
    hands = fill(HOUSE, "3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH 3D",
                 "LJ 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC", "BJ 4D 5D 6D 7D 8D 9D TD JD QD KD AD 2D")
    s = play(_in_play(HOUSE, hands), "3H", "LJ", "BJ")
    s = play(s, "2S")
    assert s.trick_winners == (2,)


def test_two_of_diamonds_does_not_follow_diamonds() -> None:
    """"If diamonds are led, the 2♦ does not follow diamonds": a seat whose only
    "diamond" is the 2♦ is void and may play anything, and the 2♦ wins as a trump."""
    hands = (cards("3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD 3H"),
             cards("2D 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC"),
             cards("4H 5H 6H 7H 8H 9H TH JH QH KH AH BJ LJ"),
             cards("2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS"))
    s = play(_in_play(HOUSE, hands), "3D")
    assert legal(s) == set(hands[1])
    assert play(s, "3C").trick == (card_id("3D"), card_id("3C"))
    s = play(s, "2D", "4H", "3S")
    assert s.trick_winners == (1,)


def test_two_of_diamonds_cannot_be_played_on_diamonds_while_holding_a_diamond() -> None:
    """The 2♦ is a spade "for every purpose": a seat holding the 3♦ must follow
    diamonds with it and may not play the 2♦ instead."""
    hands = fill(HOUSE, "4D 5D 6D 7D 8D 9D TD JD QD KD AD 3H 4H",
                 "2D 3D 3C 4C 5C 6C 7C 8C 9C TC JC QC KC")
    s = play(_in_play(HOUSE, hands), "4D")
    assert legal(s) == {"3D"}
    assert refusal(s, cmd.PlayCard(seat=1, card="2D")) == "must_follow_suit"


def test_only_spade_two_of_diamonds_must_be_played_when_spades_are_led() -> None:
    """"If spades are led and your only spade is the 2♦, you must play it"."""
    hands = fill(HOUSE, "BJ LJ AS KS QS JS TS 9S 8S 7S 6S 5S 4S",
                 "2D 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC")
    s = play(_in_play(HOUSE, hands), "AS")
    assert legal(s) == {"2D"}
    assert refusal(s, cmd.PlayCard(seat=1, card="3C")) == "must_follow_suit"


def test_little_joker_must_come_out_when_it_is_the_only_trump_and_spades_are_led() -> None:
    """"When spades are led and you hold only the Little Joker as trump, the Little
    Joker must come out"."""
    hands = fill(HOUSE, "BJ 2D 2S AS KS QS JS TS 9S 8S 7S 6S 5S",
                 "LJ 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH")
    s = play(_in_play(HOUSE, hands), "5S")
    assert legal(s) == {"LJ"}
    assert refusal(s, cmd.PlayCard(seat=1, card="AH")) == "must_follow_suit"


def test_big_joker_cannot_open_a_trick_before_spades_are_broken() -> None:
    """"You can't open a trick with the Big Joker before spades are broken"."""
    hands = fill(HOUSE, "BJ 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH")
    s = _in_play(HOUSE, hands)
    assert refusal(s, cmd.PlayCard(seat=0, card="BJ")) == "spades_not_broken"
    assert "BJ" not in legal(s)


def test_first_lead_of_every_hand_is_a_non_spade_from_the_dealers_left() -> None:
    """"The player to the dealer's left leads the first trick" and "The first lead of
    every hand is always a non-spade"."""
    for dealer in range(4):
        s = _in_play(HOUSE, fill(HOUSE), dealer)
        leader = (dealer + 1) % 4
        assert turn(s) == leader
        assert legal(s) == {code(c) for c in range(54)
                            if s.hands[leader] >> c & 1 and c not in
                            {card_id(t) for t in LADDER}}


def test_cannot_lead_spades_before_broken() -> None:
    """"You may not lead a spade until spades have been broken ... Before that, leads
    must come from hearts, diamonds or clubs"."""
    s = _in_play(CLASSIC, _breaking_deal(), dealer=3)
    assert refusal(s, cmd.PlayCard(seat=0, card="2S")) == "spades_not_broken"
    assert legal(s) == set(cards("2H 3H 4H 5H 6H 7H 8H 9H TH"))


def _breaking_deal():
    return (cards("2H 3H 4H 5H 6H 7H 8H 9H TH 2S 3S 4S 5S"),
            cards("AS KS QS JS TS 9S 8S 2D 3D 4D 5D 6D 7D"),
            cards("JH QH KH AH 8D 9D TD JD QD KD AD 2C 3C"),
            cards("6S 7S 4C 5C 6C 7C 8C 9C TC JC QC KC AC"))


def test_trump_played_on_another_suit_breaks_spades() -> None:
    """Spades are broken "the first time anyone plays a trump on a trick led in another
    suit"; after that a spade may be led."""
    s = _in_play(CLASSIC, _breaking_deal(), dealer=3)
    s = play(s, "2H", "8S")
    assert s.broken
    s = play(s, "AH", "7S")
    assert s.trick_winners == (1,)
    assert "AS" in legal(s)
    assert play(s, "AS").trick == (card_id("AS"),)


def test_discard_from_a_side_suit_does_not_break_spades() -> None:
    """Only a trump breaks spades: a void seat throwing a diamond on a heart leaves
    spades unbroken."""
    s = _in_play(CLASSIC, _breaking_deal(), dealer=3)
    s = play(s, "2H", "2D", "AH", "4C")
    assert not s.broken
    assert s.trick_winners == (2,)


def test_only_trumps_may_lead_and_breaks() -> None:
    """"If your hand holds nothing but trump, you may lead one (and that breaks spades
    too)" - even for the first lead of the hand."""
    hands = fill(HOUSE, "BJ LJ 2D 2S AS KS QS JS TS 9S 8S 7S 6S")
    s = _in_play(HOUSE, hands)
    assert legal(s) == set(hands[0])
    s = play(s, "6S")
    assert s.broken


def test_must_follow_suit_with_any_card_of_the_led_suit() -> None:
    """"If hearts are led and you hold any heart, you play a heart. It can be your
    highest or your lowest"."""
    hands = fill(HOUSE, "3H 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
                 "4H AH 3C 4C 5C 6C 7C 8C 9C TC JC QC KC")
    s = play(_in_play(HOUSE, hands), "3H")
    assert legal(s) == {"4H", "AH"}
    assert refusal(s, cmd.PlayCard(seat=1, card="KC")) == "must_follow_suit"
    assert play(s, "AH").hands[1] >> card_id("AH") & 1 == 0
    assert play(s, "4H").hands[1] >> card_id("4H") & 1 == 0


def test_void_seat_may_cut_with_a_trump_or_throw_anything() -> None:
    """"If you have no card of the led suit (you are void in it), you may play
    anything. You can cut (trump) with a spade ... or throw away a low card"."""
    hands = fill(HOUSE, "3H 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
                 "AS 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC")
    s = play(_in_play(HOUSE, hands), "3H")
    assert legal(s) == set(hands[1])


def test_off_suit_ace_is_a_discard_and_the_led_king_wins() -> None:
    """"So if K♥ is led, you can't follow, and you drop the A♣, the K♥ still wins. The
    ace of the wrong suit is just a discard"."""
    hands = (cards("KH 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD"),
             cards("AC KC QC JC TC 9C 8C 7C 6C 5C 4C 3C 2C"),
             cards("2H 4H 5H 6H 7H 8H AD 2S 3S 4S 5S 6S 7S"),
             cards("3H 9H TH JH QH AH 8S 9S TS JS QS KS AS"))
    s = play(_in_play(CLASSIC, hands), "KH", "AC", "2H", "3H")
    assert s.trick_winners == (0,)


def test_highest_trump_wins_a_trick_with_trumps() -> None:
    """"If any trump was played, the highest trump wins" - here a 3♠ cut beats the
    ace led, and a later 4♠ overtrumps it."""
    assert _winner("standard", "AH 3S KH 4S") == 3
    assert _winner("standard", "AH 3S KH 2H") == 1


def test_winner_of_a_trick_leads_the_next_and_thirteen_tricks_make_a_hand() -> None:
    """"The winner leads the next one. Thirteen tricks make a hand."""
    s = _in_play(HOUSE, fill(HOUSE), dealer=1)
    events_seen = []
    while s.phase == "play":
        s, events = play_events(s, next(iter(sorted(legal(s)))))
        events_seen += events
        for e in events:
            if isinstance(e, ev.TrickWon) and e.trick_no < 13:
                assert turn(s) == e.seat
    assert len(s.trick_winners) == 13
    assert sum(s.tricks) == 13
    assert [type(e).__name__ for e in events_seen].count("TrickWon") == 13


def test_classic_deck_is_plain_52_with_the_ace_of_spades_top_trump() -> None:
    """Classic: "a plain 52-card deck. Every suit has 13 cards, aces are high, and the
    A♠ is the top trump"."""
    d = deck("standard")
    assert [m.bit_count() for m in d.suit_mask] == [13, 13, 13, 13]
    assert _winner("standard", "KS AS 2S QS") == 1
    assert _winner("standard", "2D AD 2S KD") == 2


def test_jokers_without_deuces_deck() -> None:
    """"jokers without deuces (2♣ and 2♦ come out, A♠ sits under the jokers)"."""
    d = deck("jokers")
    held = {code(c) for c in d.cards}
    assert len(held) == 52 and {"BJ", "LJ", "2H", "2S"} <= held and not {"2C", "2D"} & held
    assert _winner("jokers", "AS LJ BJ KS") == 2
    assert _winner("jokers", "AS LJ QS KS") == 1
    assert _winner("jokers", "3S 2S 4H 5H") == 0  # the 2♠ is an ordinary low spade


def test_deuces_without_jokers_deck() -> None:
    """"deuces without jokers (plain 52 cards, 2♦ and 2♠ ranked above the A♠)"."""
    d = deck("deuces")
    held = {code(c) for c in d.cards}
    assert len(held) == 52 and not {"BJ", "LJ"} & held
    assert d.trump_mask >> card_id("2D") & 1
    assert _winner("deuces", "AS 2S KS QS") == 1
    assert _winner("deuces", "2S 2D AS KS") == 1
    assert [m.bit_count() for m in d.suit_mask] == [14, 13, 12, 13]


def test_deuce_ace_order() -> None:
    """"Some play "deuce ace", with the 2♠ above the ace and no 2♦" - the 2♦ stays an
    ordinary diamond."""
    d = deck("deuce_ace")
    assert len(d.cards) == 52
    assert _winner("deuce_ace", "AS 2S KS QS") == 1
    assert not d.trump_mask >> card_id("2D") & 1
    assert _winner("deuce_ace", "3D 2D 4H 5H") == 0


def test_two_spade_above_two_diamond_alternative() -> None:
    """"A common alternative ladder: Big Joker, Little Joker, 2♠, 2♦, A♠"."""
    r = rules("house", deuce_order="spade_high")
    assert r.deck == "jokers_deuces"
    for higher, lower in (("BJ", "LJ"), ("LJ", "2S"), ("2S", "2D"), ("2D", "AS")):
        assert _winner("jokers_deuces", f"{lower} {higher} 3H 4H", order="spade_high") == 1
    hands = fill(r, "3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH 3D",
                 "2D 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC",
                 "2S 4D 5D 6D 7D 8D 9D TD JD QD KD AD 3S")
    s = play(_in_play(r, hands), "3H", "2D", "2S")
    s = play(s, sorted(legal(s))[0])
    assert s.trick_winners == (2,)


def test_a_seat_cannot_play_out_of_turn_or_a_card_it_does_not_hold() -> None:
    """"Play goes clockwise, each player adding one card": only the seat to play may
    play, and only a card it holds ("the game only lets you play legal cards")."""
    s = _in_play(HOUSE, fill(HOUSE), dealer=3)
    assert refusal(s, cmd.PlayCard(seat=1, card=sorted(fill(HOUSE)[1])[0])) == "not_your_turn"
    assert refusal(s, cmd.PlayCard(seat=0, card=fill(HOUSE)[1][0])) == "card_not_in_hand"
    assert refusal(s, cmd.PlayCard(seat=0, card="2H")) == "card_not_in_deck"
    assert refusal(s, cmd.PlayCard(seat=0, card="ZZ")) == "unknown_card"


def test_a_hand_played_out_scores_once_with_all_thirteen_tricks() -> None:
    """"Scoring happens at the end of each hand, once all 13 tricks are played"."""
    s, _ = play_out(_in_play(HOUSE, fill(HOUSE)))
    assert s.hands_played == 1 and len(s.sheet) == 1
    assert s.sheet[0].tricks == s.tricks and sum(s.tricks) == 13


def test_two_of_diamonds_played_on_another_suit_breaks_spades() -> None:
    """The 2♦ "is a spade for every purpose" - cutting a heart with it breaks spades,
    and before that it may not be led."""
    hands = fill(HOUSE, "3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH 3D",
                 "2D 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC")
    s = _in_play(HOUSE, hands)
    s = play(s, "3H", "2D")
    assert s.broken


def test_jokers_are_spades_when_leading_and_breaking() -> None:
    """"Jokers and the 2♦ follow the same rule": a joker cannot be led before spades are
    broken, and a joker on a side-suit lead breaks them."""
    hands = fill(HOUSE, "3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH 2D",
                 "LJ 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC")
    s = _in_play(HOUSE, hands)
    assert refusal(s, cmd.PlayCard(seat=0, card="2D")) == "spades_not_broken"
    s = play(s, "3H", "LJ")
    assert s.broken


def test_a_deal_is_four_hands_of_13_distinct_cards_of_the_deck() -> None:
    """"Everyone ends with 13 cards" from the table's deck: a short hand, a card dealt
    twice or a card the variant removed is refused."""
    s = start(HOUSE)
    good = fill(HOUSE)
    short = (good[0][:12], *good[1:])
    assert refusal(s, cmd.DealHand(dealer=0, hands=short)) == "bad_deal"
    twice = (good[0], (good[0][0], *good[1][1:]), *good[2:])
    assert refusal(s, cmd.DealHand(dealer=0, hands=twice)) == "bad_deal"
    within = ((good[0][0], *good[0][:12]), (*good[1], good[0][12])[1:], *good[2:])
    assert refusal(s, cmd.DealHand(dealer=0, hands=within)) == "bad_deal"
    lower = (tuple(c.lower() for c in good[0]), *good[1:])
    dealt = narrowed(step(s, cmd.DealHand(dealer=0, hands=lower))[1][0], ev.HandDealt)
    assert dealt.hands == good
    removed = ((*good[0][:12], "2H"), *good[1:])
    assert refusal(s, cmd.DealHand(dealer=0, hands=removed)) == "card_not_in_deck"
