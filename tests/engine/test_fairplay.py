"""The fair-play detector (docs/fairplay.md): partners who see each other's hands and
accounts that throw games to each other stand out; skill does not."""

from __future__ import annotations

from random import Random

import pytest

from engine.cards import card_id
from engine.fairplay import Game, evidence, judge, weigh_records
from engine.fairplay.evidence import AHEAD, BEHIND, NOT, SURE, Card, grades, tells, weigh_card
from engine.fairplay.pairs import OPPONENTS_Z, PARTNERS_Z
from engine.presets import resolve
from engine.recordfields import RecordError
from engine.records import plays_of
from tests.bench.fairplay_league import Account, play_match

from .helpers import CLASSIC, bid, deal, fill, play


def _game(gid: str, players: tuple[str, str, str, str], cards: list[Card],
          points: tuple[int, int] = (300, 200), hands: int = 10) -> Game:
    return Game(gid, players, 0, hands, points, tuple(cards))


def _verdict(games: list[Game], a: str, b: str, relation: str):
    return next(v for v in judge(games) if v.players == (a, b) and v.relation == relation)


def test_a_forced_card_is_no_evidence() -> None:
    """A seat with one legal card chose nothing: the card is not weighed; a seat with a
    choice is."""
    hands = fill(CLASSIC, "AH 5H 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS",
                 "2H 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC")
    s = bid(deal(CLASSIC, hands, dealer=3), [3, 3, 3, 3])
    assert weigh_card(s, 0, card_id("AH"), seed=1) is not None
    s = play(s, "AH")
    assert weigh_card(s, 1, card_id("2H"), seed=1) is None


def test_an_honest_coin_is_not_flagged_however_many_hands() -> None:
    """Half the telling decisions each way is honest play, at any volume."""
    cards = [Card(s, 1 if i % 2 else -1) for i in range(4000) for s in (0, 2)]
    v = _verdict([_game("g", ("a", "b", "c", "d"), cards, hands=800)], "a", "c", "partners")
    assert not v.flagged and abs(v.score) < 1


def test_partners_who_follow_the_real_hand_are_flagged() -> None:
    """Sixty per cent of 600 telling decisions towards the real hand is far past chance."""
    cards = [Card(s, 1 if i % 5 < 3 else -1) for i in range(300) for s in (0, 2)]
    v = _verdict([_game("g", ("a", "b", "c", "d"), cards)], "a", "c", "partners")
    assert v.flagged and v.score >= PARTNERS_Z
    assert v.players == ("a", "c") and v.hands == 10 and "60%" in v.why


def test_the_other_team_is_judged_on_its_own_cards() -> None:
    cards = [Card(0, 1) for _ in range(200)] + [Card(1, 1 if i % 2 else -1)
                                                     for i in range(200)]
    games = [_game("g", ("a", "b", "c", "d"), cards)]
    assert _verdict(games, "a", "c", "partners").flagged
    assert not _verdict(games, "b", "d", "partners").flagged


def _meeting(gid: str, thrower: str, by: int) -> Game:
    """``thrower`` (seat 0) and its partner lose to seat 1's ``y`` by ``by`` points."""
    return _game(gid, (thrower, "y", f"p{gid}", f"q{gid}"), [], points=(100 - by, 100))


def _elsewhere(gid: str, who: str, by: int) -> Game:
    return _game(gid, (who, f"o{gid}", f"r{gid}", f"s{gid}"), [], points=(100 - by, 100))


def test_an_account_that_throws_its_meetings_is_flagged() -> None:
    """x's team loses to y's by far more than x's team loses its other games: rating
    handed over, not lost."""
    games = [_meeting(f"m{i}", "x", 550 + 20 * (i % 5)) for i in range(5)]
    games += [_elsewhere(f"e{i}", "x", 100 + 40 * (i % 5)) for i in range(10)]
    v = _verdict(games, "x", "y", "opponents")
    assert v.flagged and v.score >= OPPONENTS_Z
    assert "x lost 5 of 5 meetings with y" in v.why and "its other lost games" in v.why


def test_a_weak_account_losing_to_a_strong_one_is_not_flagged() -> None:
    """Skill is not evidence: an account that loses by as much everywhere is weak."""
    games = [_meeting(f"m{i}", "x", 150 + 40 * (i % 5)) for i in range(6)]
    games += [_elsewhere(f"e{i}", "x", 130 + 40 * (i % 5)) for i in range(10)]
    assert not _verdict(games, "x", "y", "opponents").flagged


def test_without_its_own_losses_an_account_is_compared_with_others() -> None:
    """An account with few other games is measured against the games neither played."""
    games = [_meeting(f"m{i}", "x", 600 + 10 * i) for i in range(4)]
    games += [_game(f"n{i}", ("a", "b", "c", "d"), [], points=(100, 250 + 30 * (i % 4)))
              for i in range(12)]
    v = _verdict(games, "x", "y", "opponents")
    assert v.flagged and "lost games of others" in v.why


def test_opponents_who_met_too_rarely_are_not_judged() -> None:
    games = [_meeting(f"m{i}", "x", 600) for i in range(2)]
    v = _verdict(games, "x", "y", "opponents")
    assert not v.flagged and v.score == 0 and "too few" in v.why


def test_a_record_without_players_is_refused() -> None:
    from engine.fairplay import players_of

    with pytest.raises(RecordError) as e:
        players_of({"id": "t"})
    assert e.value.field == "players"
    with pytest.raises(RecordError):
        players_of({"players": ["a", "b", "c"]})


def test_partners_who_see_each_others_hands_score_above_honest_ones() -> None:
    """Whole matches of expert bots: the pair whose search deals the partner's real cards
    follows the real hand on most telling decisions; the honest pair does not."""
    r = resolve("classic")
    rng = Random(7)
    seats = (Account("a", peek=1.0), Account("b"), Account("c", peek=1.0), Account("d"))
    games = []
    for i in range(3):
        rec = play_match(r, seats, rng, f"g{i}", i)
        games.append(weigh_records(f"g{i}", ("a", "b", "c", "d"), i, [rec], seed=i))
    cheats = _verdict(games, "a", "c", "partners")
    honest = _verdict(games, "b", "d", "partners")
    assert cheats.score > honest.score + 2
    assert not honest.flagged


def test_a_search_that_stops_early_tells_what_the_whole_search_tells(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A search stops once a card is surely better than the one played (or every other
    surely worse): on a whole match of experts, one of them peeking, a card it calls
    surely beaten is nearly always behind a candidate once every deal is searched, and
    one it calls surely the best is ahead."""
    rng = Random(11)
    seats = (Account("a", peek=1.0), Account("b"), Account("c"), Account("d", level="basic"))
    rec = play_match(resolve("quick"), seats, rng, "g", 0)

    def graded() -> list[tuple[int, int] | None]:
        return [grades(before, seat, card_id(card), 3 * 7919 + n)
                for n, (_, before, seat, card, _) in enumerate(plays_of(rec))]

    pruned = graded()
    monkeypatch.setattr(evidence, "_PRUNE_AFTER", evidence.DEALS + 1)  # never stops early
    whole = graded()
    pairs = [(p, w) for ps, ws in zip(pruned, whole, strict=True) if ps and ws
             for p, w in zip(ps, ws, strict=True)]
    assert {w for _, w in pairs} <= {BEHIND, AHEAD}  # the whole search is never sure
    beaten = [w for p, w in pairs if p == NOT]
    best = [w for p, w in pairs if p == SURE]
    assert len(beaten) >= 20 and len(best) >= 20
    assert beaten.count(BEHIND) >= 0.75 * len(beaten), beaten
    assert best.count(AHEAD) >= 0.9 * len(best), best


def test_a_card_tells_when_one_hand_makes_it_surely_best_and_the_other_surely_beaten(
        ) -> None:
    """Only two sure verdicts that disagree tell: surely the best with the real hand and
    surely beaten with the plausible one (or the other way round). A search that ended
    unsure says nothing, whatever the other said."""
    assert tells(SURE, NOT) == 1
    assert tells(NOT, SURE) == -1
    for real in (NOT, BEHIND, AHEAD, SURE):
        for plausible in (NOT, BEHIND, AHEAD, SURE):
            if {real, plausible} != {SURE, NOT}:
                assert tells(real, plausible) == 0, (real, plausible)


def _series(counts: dict[tuple[int, int], int]) -> list[Card]:
    """A partnership's decisions, ``counts`` of each pair of grades (real, plausible),
    by both partners, interleaved."""
    graded = [g for g, n in counts.items() for _ in range(n)]
    Random(5).shuffle(graded)
    return [Card(2 * (i % 2), tells(*g)) for i, g in enumerate(graded)]


def _partners(counts: dict[tuple[int, int], int]):
    return _verdict([_game("g", ("a", "b", "c", "d"), _series(counts), hands=1000)],
                    "a", "c", "partners")


def test_a_pair_peeking_on_a_quarter_of_its_decisions_is_flagged_in_1000_hands() -> None:
    """Cells as measured for a thousand hands of a pair peeking on a quarter of its card
    decisions (docs/fairplay.md): surely the best with the real hand and surely beaten
    with the plausible one 56% of the times the two sure verdicts disagree, which flags
    it. Counting every decision whose card was the best with one hand only, as before,
    dilutes that with close calls that say nothing (sure with one hand, unsure with the
    other, 50/50), and would not flag it."""
    v = _partners({(SURE, NOT): 1280, (NOT, SURE): 1020, (SURE, BEHIND): 800,
                   (BEHIND, SURE): 805, (AHEAD, NOT): 240, (NOT, AHEAD): 230,
                   (AHEAD, BEHIND): 150, (BEHIND, AHEAD): 170, (BEHIND, NOT): 1460,
                   (NOT, BEHIND): 1190, (SURE, SURE): 1900, (NOT, NOT): 3900})
    assert v.flagged and v.score >= PARTNERS_Z, v
    assert "56%" in v.why


def test_honest_searches_that_end_unsure_with_the_real_hand_are_not_evidence() -> None:
    """Honest pairs as measured, a basic pair and an expert with a beginner partner: the
    searches with the real hand end unsure (behind or ahead in sum) more often than those
    with the plausible hand, so a card is surely beaten with the plausible hand and not
    with the real one more often (55%), and surely the best with the plausible hand
    while unsure with the real one more often (54%); only the sure verdicts that
    disagree count, and they are an even coin."""
    v = _partners({(SURE, NOT): 1150, (NOT, SURE): 1150, (BEHIND, NOT): 1640,
                   (NOT, BEHIND): 1360, (SURE, BEHIND): 700, (BEHIND, SURE): 830,
                   (AHEAD, NOT): 280, (NOT, AHEAD): 276, (SURE, SURE): 1900,
                   (NOT, NOT): 3900})
    assert not v.flagged and abs(v.score) < 1, v
