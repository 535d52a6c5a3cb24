"""Standings: match points, then tie-breaks in the organizer's order, then the seed."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schemas.tournaments import events as ev
from services.tournaments import formats
from services.tournaments.formats import TieBreakError
from services.tournaments.standings import Ledger, Result, ranked, standings
from services.tournaments.state import Team, Tournament, result_of

SEEDS = ["a", "b", "c", "d"]


def order(rows: list) -> list[str]:
    return [r.team_id for r in rows]


def test_match_points_come_first_and_the_seed_last() -> None:
    rows = standings(SEEDS, [Result(1, "a", "b", "away", scores=(300, 400)),
                             Result(1, "c", "d", "draw", scores=(350, 350))])
    assert order(rows) == ["b", "c", "d", "a"]
    assert [r.match_points for r in rows] == [2, 1, 1, 0]
    assert [r.rank for r in rows] == [1, 2, 3, 4]


def test_differential_then_bags_then_points_break_ties() -> None:
    results = [Result(1, "a", "b", "home", scores=(500, 400), bags_taken=(3, 0)),
               Result(1, "c", "d", "home", scores=(500, 400), bags_taken=(1, 0))]
    assert order(standings(SEEDS, results)) == ["c", "a", "b", "d"]
    results = [Result(1, "a", "b", "home", scores=(500, 400)),
               Result(1, "c", "d", "home", scores=(450, 350))]
    assert order(standings(SEEDS, results)) == ["a", "c", "b", "d"]


def test_byes_and_forfeits_add_no_differential() -> None:
    rows = standings(SEEDS, [Result(1, "a", "b", "home", reason="forfeit", scores=(500, 0)),
                             Result(1, "c", "d", "home", scores=(410, 400))],
                     byes=[(2, "d")])
    by = {r.team_id: r for r in rows}
    assert by["a"].differential == 0 and by["c"].differential == 10
    assert by["d"].match_points == 2 and by["d"].differential == -10


def test_buchholz_counts_a_bye_as_a_virtual_opponent() -> None:
    # Round 1: a beats b, c beats d. Round 2: a beats c; b has the bye... round 3: d beats b.
    results = [Result(1, "a", "b", "home"), Result(1, "c", "d", "home"),
               Result(2, "a", "c", "home"), Result(3, "d", "b", "home")]
    rows = standings(["a", "b", "c", "d", "e"], results, byes=[(2, "b")],
                     tiebreaks=formats.of("swiss").tiebreak_order(()))
    by = {r.team_id: r for r in rows}
    # b's opponents: a (4) and d (2); its bye in round 2: 0 before it, lost, 1 draw after.
    assert by["b"].buchholz == 4 + 2 + 0 + 1


def test_head_to_head_counts_the_matches_among_teams_level_on_points() -> None:
    results = [Result(1, "a", "b", "away"), Result(1, "c", "d", "home", scores=(500, 0)),
               Result(2, "a", "c", "home"), Result(2, "b", "d", "away", scores=(0, 500))]
    rows = standings(SEEDS, results, tiebreaks=formats.of("round_robin").tiebreak_order(()))
    # a, b, c, d: 2, 2, 2, 2... all level; head to head then: each won one among them.
    by = {r.team_id: r for r in rows}
    assert by["b"].head_to_head == 2 and by["a"].head_to_head == 2
    assert order(rows)[0] in ("c", "d")  # the big differentials break the tie next


def test_organizers_may_reorder_tiebreaks() -> None:
    results = [Result(1, "a", "b", "home", scores=(500, 490), bags_taken=(0, 0)),
               Result(1, "c", "d", "home", scores=(600, 400), bags_taken=(5, 0))]
    assert order(standings(SEEDS, results, tiebreaks=("differential", "bags")))[:2] == ["c", "a"]
    assert order(standings(SEEDS, results, tiebreaks=("bags", "differential")))[:2] == ["a", "c"]


def test_a_tiebreak_the_format_lacks_is_refused() -> None:
    with pytest.raises(TieBreakError):
        formats.of("single_elimination").tiebreak_order(("buchholz",))
    with pytest.raises(TieBreakError):
        formats.of("swiss").tiebreak_order(("bags", "bags"))
    assert formats.of("swiss").tiebreak_order(()) == ("buchholz", "differential", "bags", "points")


result = st.builds(lambda r, a, b, o, s1, s2, g1, g2: (r, a, b, o, (s1, s2), (g1, g2)),
                   st.integers(1, 5), st.integers(0, 9), st.integers(0, 9),
                   st.sampled_from(["home", "away", "draw", "double_forfeit"]),
                   st.integers(-200, 600), st.integers(-200, 600), st.integers(0, 12),
                   st.integers(0, 12))


@settings(max_examples=80, derandomize=True, deadline=None)
@given(raw=st.lists(result, max_size=30), kind=st.sampled_from(["swiss", "round_robin"]))
def test_standings_are_a_total_order(raw: list, kind: str) -> None:
    seeds = [f"t{i}" for i in range(10)]
    results = [Result(r, seeds[a], seeds[b], o, scores=s, bags_taken=g)
               for r, a, b, o, s, g in raw if a != b]
    breaks = formats.of(kind).tiebreak_order(())
    rows = standings(seeds, results, tiebreaks=breaks)
    assert sorted(order(rows)) == sorted(seeds)
    assert [r.rank for r in rows] == list(range(1, 11))
    assert [r.match_points for r in rows] == sorted((r.match_points for r in rows), reverse=True)
    assert standings(list(seeds), list(results), tiebreaks=breaks) == rows


step = st.one_of(
    st.tuples(st.just("result"), st.integers(0, 30),
              st.sampled_from(["home", "away", "draw", "double_forfeit"]),
              st.sampled_from(["played", "forfeit", "no_show"]),
              st.tuples(st.integers(-200, 600), st.integers(-200, 600)),
              st.tuples(st.integers(0, 12), st.integers(0, 12))),
    st.tuples(st.just("override"), st.integers(0, 30),
              st.sampled_from(["home", "away", "draw", "double_forfeit"]),
              st.tuples(st.integers(-200, 600), st.integers(-200, 600))),
    st.tuples(st.just("round"), st.randoms(use_true_random=False)),
    st.tuples(st.just("join")))


@settings(max_examples=150, derandomize=True, deadline=None)
@given(steps=st.lists(step, max_size=40), teams=st.integers(2, 9),
       breaks=st.permutations(["buchholz", "head_to_head", "differential", "bags", "points"]),
       kept=st.integers(0, 5), bye_points=st.sampled_from([0, 2]))
def test_the_standings_kept_with_the_fold_equal_a_recount_of_its_results(
        steps: list, teams: int, breaks: list, kept: int, bye_points: int) -> None:
    """Results, overrides, rounds with byes and late joiners folded one at a time: after
    each, the standings from the ledger the fold keeps (what a result now costs: a sort)
    equal the standings recounted from every match's result, and the ledger equals one
    tallied from nothing."""
    state = Tournament()
    seeds = [f"t{i}" for i in range(teams)]
    state.apply(ev.TournamentStarted(seeds=tuple(seeds)))
    for team in seeds:
        state.teams[team] = Team(team, team, (f"{team}a", f"{team}b"), 0.0)
    tiebreaks = tuple(breaks[:kept])
    for s in steps:
        ids = sorted(state.matches)
        if s[0] == "result" and (open_ := [i for i in ids if state.matches[i].outcome is None]):
            _, k, outcome, reason, scores, bags = s
            state.apply(ev.MatchResult(match_id=open_[k % len(open_)], outcome=outcome,
                                       reason=reason, scores=scores, bags_taken=bags))
        elif s[0] == "override" and (done := [i for i in ids
                                              if state.matches[i].outcome is not None]):
            _, k, outcome, scores = s
            state.apply(ev.ResultOverridden(match_id=done[k % len(done)], outcome=outcome,
                                            scores=scores, by="org", why=""))
        elif s[0] == "round":
            order = list(state.seeds)
            s[1].shuffle(order)
            n = len(state.rounds) + 1
            state.apply(ev.RoundPaired(round_no=n, byes=tuple(order[len(order) // 2 * 2:]),
                                       pairings=tuple(ev.Pairing(
                                           match_id=f"R{n}-{i}", round_no=n, home=order[2 * i],
                                           away=order[2 * i + 1])
                                           for i in range(len(order) // 2))))
        elif s[0] == "join" and state.rounds:
            team = f"late{len(state.seeds)}"
            state.teams[team] = Team(team, team, (f"{team}a", f"{team}b"), 0.0)
            state.apply(ev.TeamJoined(team_id=team, round_no=len(state.rounds) + 1))
        kept_rows = ranked(state.seeds, state.ledger, state.byes(), bye_points, tiebreaks,
                           state.half_byes)
        assert kept_rows == standings(state.seeds, state.results(), state.byes(), bye_points,
                                      tiebreaks, state.half_byes)
        assert tallied(state.ledger) == tallied(Ledger.of(
            (m.pairing.match_id, r) for m in state.matches.values() if (r := result_of(m))))


def tallied(ledger: Ledger) -> tuple[object, ...]:
    """A ledger's content, whatever the order its results came in."""
    return (ledger.results, dict(ledger.tally), dict(ledger.by_round),
            {team: sorted(o) for team, o in ledger.opponents.items()}, ledger.last_round)
