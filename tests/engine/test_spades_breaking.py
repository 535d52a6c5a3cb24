"""When spades are broken (``spades_broken_by``), each preset as its own text says.

Pagat classic, the beginner's guide and the club rules break spades only with a
spade played on another suit's lead; Spades Night also lets a lead from a hand
of nothing but trumps break them ("and that breaks spades too").
"""

from __future__ import annotations

import pytest

from engine.cards import card_id
from engine.presets import PRESETS
from engine.records import judge
from schemas import commands as cmd
from schemas.rules import Rules

from .helpers import CLASSIC, bid, cards, deal, legal, play, refusal, rules, step

# Dealer 3, so seat 0 leads. Seat 0 wins three hearts and is left with nothing but
# spades; it leads the ace of spades, then a low spade that seat 2 takes with the king.
# Seat 2 then leads holding the queen of spades and a heart.
WORKED_DEAL = (
    cards("AH KH QH AS JS TS 9S 8S 7S 6S 5S 4S 3S"),
    cards("7H 6H 5H 8D 9D TD JD QD KD AD 2C 3C 4C"),
    cards("KS QS 2S JH TH 9H 8H 2D 3D 4D 5D 6D 7D"),
    cards("4H 3H 2H 5C 6C 7C 8C 9C TC JC QC KC AC"),
)
WORKED_PLAYS = ("AH 7H JH 4H", "KH 6H TH 3H", "QH 5H 9H 2H",
                "AS 8D 2S 5C",  # the forced lead from an all-spade hand
                "3S 9D KS 6C")  # seat 2 wins and leads next


def _worked_case(r: Rules):
    s = bid(deal(r, WORKED_DEAL, dealer=3), (3, 3, 3, 3))
    for trick in WORKED_PLAYS[:3]:
        s = play(s, *trick.split())
    assert s.hands[0] & ~s.deck.trump_mask == 0  # only spades left
    s = play(s, *WORKED_PLAYS[3].split())
    return s, play(s, *WORKED_PLAYS[4].split())


@pytest.mark.parametrize("preset", ["classic", "beginner", "club"])
def test_a_forced_spade_lead_does_not_break_spades_in_the_strict_texts(preset: str) -> None:
    """Pagat: "Do not lead spades until one has been played on another suit, unless only
    spades remain"; the beginner's guide: "The first time a spade is played on a
    non-spade lead"; the club rules: "until they have been broken by a play on another
    suit". Seat 0 leads the ace of spades holding only spades; the next leader holds a
    spade and a heart and may not lead the spade."""
    r = PRESETS[preset]
    assert r.spades_broken_by == "play_on_other_suit"
    after_ace, s = _worked_case(r)
    assert not after_ace.broken
    assert s.waiting == 1 << 2 and s.trick == ()
    assert refusal(s, cmd.PlayCard(seat=2, card="QS")) == "spades_not_broken"
    assert "QS" not in legal(s) and "8H" in legal(s)
    assert step(s, cmd.PlayCard(seat=2, card="8H"))[0].trick == (card_id("8H"),)


def test_a_forced_spade_lead_breaks_spades_in_the_house_text() -> None:
    """Spades Night: "if your hand holds nothing but trump, you may lead one (and that
    breaks spades too)": the same deal, read that way, lets the next leader lead one."""
    assert PRESETS["house"].spades_broken_by == PRESETS["quick"].spades_broken_by == "any_spade"
    after_ace, s = _worked_case(rules(CLASSIC, spades_broken_by="any_spade"))
    assert after_ace.broken
    assert "QS" in legal(s)
    assert step(s, cmd.PlayCard(seat=2, card="QS"))[0].trick == (card_id("QS"),)


RUFF_DEAL = (cards("2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC"),
             cards("AS 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH"),
             cards("KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S AH"),
             cards("2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD"))


@pytest.mark.parametrize("how", ["any_spade", "play_on_other_suit"])
def test_a_spade_played_on_another_suit_breaks_spades(how: str) -> None:
    """"The first time a spade is played on a non-spade lead": under both readings a
    ruff breaks spades, and a side card discarded on another suit does not."""
    s = bid(deal(rules(CLASSIC, spades_broken_by=how), RUFF_DEAL, dealer=3), (3, 3, 3, 3))
    s = play(s, "2C", "2H")
    assert not s.broken  # a heart discarded on a club
    s = play(s, "AH", "2D", "3C", "AS")
    assert s.broken  # the ace of spades on a club lead


@pytest.mark.parametrize("how,verdict", [("play_on_other_suit", "spades_not_broken"),
                                         ("any_spade", None)])
def test_a_record_of_the_worked_case_is_judged_by_the_same_reading(how, verdict) -> None:
    """``spades record verify`` reads the worked case as play does: seat 2 leading the
    queen of spades after the forced ace is refused under the strict reading only."""
    rec = {"id": "w", "rules": {"preset": "classic", "spades_broken_by": how}, "dealer": 3,
           "hands": [list(h) for h in WORKED_DEAL], "bids": [3, 3, 3, 3],
           "plays": [*" ".join(WORKED_PLAYS).split(), "QS"]}
    got = judge(rec)
    assert got == judge(rec, quick=False)
    if verdict is None:
        assert got["ok"] is True and got["trick_winners"] == [0, 0, 0, 0, 2]
    else:
        assert got["ok"] is False
        assert (got["error"]["code"], got["error"]["play_index"]) == (verdict, 20)
