"""Duplicate deals: matchpoints against every team that held the same cards."""

from __future__ import annotations

import msgspec

from schemas.tournaments import commands as cmd
from schemas.tournaments import events as ev
from schemas.tournaments.events import DealResult
from services.tournaments.decide import standings_of
from services.tournaments.duplicate import TableDeals, matchpoints, published
from services.tournaments.state import MatchState
from tests.services.tournaments.driver import STARTS, Run, registered, settings


def test_each_team_is_compared_with_those_that_held_its_cards() -> None:
    # Deal 1 at three tables; home teams a, c, e held the same cards, away b, d, f too.
    tables = [TableDeals(1, "a", "b", (DealResult(deal_no=1, home=110, away=-100),)),
              TableDeals(1, "c", "d", (DealResult(deal_no=1, home=60, away=40),)),
              TableDeals(1, "e", "f", (DealResult(deal_no=1, home=60, away=40),))]
    got = matchpoints(tables)
    # Home nets: a 210, c 20, e 20: a beats two (4 half points), c and e beat none, tie one.
    assert {t: s.matchpoints for t, s in got.items()} == {
        "a": 4, "c": 1, "e": 1, "b": 0, "d": 3, "f": 3}
    assert all(s.top == 4 for s in got.values())
    assert got["a"].percent == 100.0 and got["b"].percent == 0.0


def test_deals_of_different_rounds_are_not_compared() -> None:
    tables = [TableDeals(1, "a", "b", (DealResult(deal_no=1, home=100, away=0),)),
              TableDeals(2, "c", "d", (DealResult(deal_no=1, home=0, away=100),))]
    assert all(s.top == 0 and s.percent == 0.0 for s in matchpoints(tables).values())


def test_what_anyone_sees_of_a_round_hides_its_deal_seed_until_it_is_over() -> None:
    paired = ev.RoundPaired(round_no=1, pairings=(), deal_seed_hash="h", deal_seed="ab" * 16)
    assert ev.public(paired) == msgspec.structs.replace(paired, deal_seed="")
    completed = ev.RoundCompleted(round_no=1, deal_seed="ab" * 16)
    assert ev.public(completed) is completed


def test_what_anyone_sees_of_a_result_leaves_out_its_score_per_deal() -> None:
    result = ev.MatchResult(match_id="R1-1", outcome="home", reason="played",
                            scores=(120, 80), deals=(DealResult(deal_no=1, home=120, away=80),))
    assert ev.public(result) == msgspec.structs.replace(result, deals=())
    plain = ev.MatchResult(match_id="R1-2", outcome="away", reason="played")
    assert ev.public(plain) is plain


def test_a_duplicate_tournament_feed_leaves_every_result_out() -> None:
    result = ev.MatchResult(match_id="R1-1", outcome="home", reason="played", scores=(120, 80))
    override = ev.ResultOverridden(match_id="R1-1", outcome="away", scores=(0, 0), by="o",
                                   why="w")
    assert ev.public(result, duplicate=True) is None
    assert ev.public(override, duplicate=True) is None
    assert ev.public(override) is override


def _round_one(deals: str = "duplicate") -> Run:
    """Four teams, round 1 paired."""
    run = registered(settings("swiss", 8, deals=deals), 4)
    run.do(cmd.Start(at=STARTS))
    run.do(cmd.PairRound(at=STARTS, seed="ab" * 16))
    return run


def _tables(run: Run) -> tuple[MatchState, MatchState]:
    first, second = (run.state.matches[m] for m in run.state.rounds[0].match_ids)
    return first, second


def test_random_deals_hide_no_result() -> None:
    run = _round_one("random")
    first, _ = _tables(run)
    run.do(cmd.RecordResult(at=STARTS + 1, match_id=first.pairing.match_id, outcome="home",
                            scores=(100, 50)))
    assert published(run.state) is run.state


def test_the_bracket_shows_a_duplicate_rounds_results_only_once_it_is_over() -> None:
    run = _round_one()
    first, second = _tables(run)
    run.do(cmd.RecordResult(at=STARTS + 1, match_id=first.pairing.match_id, outcome="home",
                            scores=(100, 50), bags_taken=(2, 1),
                            deals=(DealResult(deal_no=1, home=100, away=50),)))
    shown = published(run.state).matches[first.pairing.match_id]
    assert (shown.outcome, shown.scores, shown.bags_taken, shown.deals) == (
        None, (0, 0), (0, 0), ())
    assert run.state.matches[first.pairing.match_id].outcome == "home"  # the fold keeps it
    assert all(r.points == 0 and r.match_points == 0
               for r in standings_of(published(run.state)))
    run.do(cmd.RecordResult(at=STARTS + 2, match_id=second.pairing.match_id, outcome="away",
                            scores=(10, 70)))
    assert run.state.rounds[0].completed
    assert published(run.state) is run.state
