"""Swiss pairing: equal points meet, no avoidable rematch or second bye, the bye to the
lowest team without one, and a pairing that depends only on the standings and the seed."""

from __future__ import annotations

import random

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

from services.tournaments.formats.swiss import (
    SwissRound,
    SwissTeam,
    default_rounds,
    max_rounds,
    pair,
)

from .driver import swiss_history as history

SETTINGS = settings(max_examples=40, derandomize=True, deadline=None)
SEED = "00" * 16


def avoidable(standing: list[SwissTeam]) -> bool:
    """Whether a pairing with no rematch and no second bye exists (an exact check)."""
    g = nx.Graph()
    for i, a in enumerate(standing):
        for b in standing[i + 1:]:
            if b.team_id not in a.opponents:
                g.add_edge(a.team_id, b.team_id)
        if len(standing) % 2 and not a.had_bye:
            g.add_edge(a.team_id, "BYE")
    nodes = len(standing) + len(standing) % 2
    return len(nx.max_weight_matching(g, maxcardinality=True)) * 2 == nodes


def check_round(standing: list[SwissTeam], drawn: SwissRound) -> None:
    seen = [t for p in drawn.pairs for t in p] + ([drawn.bye] if drawn.bye else [])
    assert sorted(seen) == sorted(t.team_id for t in standing)  # once a round, or the bye
    by_id = {t.team_id: t for t in standing}
    rematches = sum(b in by_id[a].opponents for a, b in drawn.pairs)
    second_bye = bool(drawn.bye and by_id[drawn.bye].had_bye)
    if avoidable(standing):
        assert rematches == 0 and not second_bye


@SETTINGS
@given(n=st.integers(2, 24), seed=st.integers(0, 2**32), exact=st.booleans())
def test_every_round_pairs_each_team_once_without_an_avoidable_rematch(
        n: int, seed: int, exact: bool) -> None:
    rounds = max_rounds(n)
    for standing, drawn in history(n, rounds, random.Random(seed), 100 if exact else 0):
        check_round(standing, drawn)


def test_the_bye_goes_to_the_lowest_team_without_one() -> None:
    teams = [SwissTeam("a", 4), SwissTeam("b", 2), SwissTeam("c", 2),
             SwissTeam("d", 0, had_bye=True), SwissTeam("e", 0)]
    for limit in (100, 0):
        assert pair(teams, SEED, limit).bye == "e"
    teams[-1] = SwissTeam("e", 0, had_bye=True)
    for limit in (100, 0):
        assert pair(teams, SEED, limit).bye == "c"


def test_equal_points_meet() -> None:
    teams = [SwissTeam(t, p) for t, p in (("a", 4), ("b", 4), ("c", 2), ("d", 2),
                                          ("e", 0), ("f", 0))]
    for limit in (100, 0):
        got = {frozenset(p) for p in pair(teams, SEED, limit).pairs}
        assert got == {frozenset("ab"), frozenset("cd"), frozenset("ef")}


def test_a_rematch_within_a_score_group_sends_a_team_down_instead() -> None:
    teams = [SwissTeam("a", 2, frozenset("b")), SwissTeam("b", 2, frozenset("a")),
             SwissTeam("c", 0, frozenset("d")), SwissTeam("d", 0, frozenset("c"))]
    for limit in (100, 0):
        got = {frozenset(p) for p in pair(teams, SEED, limit).pairs}
        assert got in ({frozenset("ac"), frozenset("bd")}, {frozenset("ad"), frozenset("bc")})


def test_a_rematch_is_allowed_only_when_nothing_else_pairs() -> None:
    teams = [SwissTeam("a", 2, frozenset("b")), SwissTeam("b", 0, frozenset("a"))]
    for limit in (100, 0):
        assert pair(teams, SEED, limit).pairs in ([("a", "b")], [("b", "a")])


@SETTINGS
@given(n=st.integers(2, 40), seed=st.integers(0, 2**32), exact=st.booleans())
def test_pairing_is_a_function_of_the_standings_and_the_seed(
        n: int, seed: int, exact: bool) -> None:
    limit = 100 if exact else 0
    for standing, drawn in history(n, 3, random.Random(seed), limit):
        round_seed = f"{seed:032x}"
        again = pair(list(standing), round_seed, limit)
        assert again == pair(list(standing), round_seed, limit)
        # The seed only chooses who sits in seats 0 and 2.
        assert {frozenset(p) for p in again.pairs} == {frozenset(p) for p in drawn.pairs}


def test_round_counts_follow_the_field() -> None:
    assert [default_rounds(n) for n in (2, 8, 11, 1024)] == [1, 3, 4, 10]
    assert [max_rounds(n) for n in (3, 6, 11, 100)] == [1, 3, 7, 66]


def test_large_fields_pair_by_score_groups_without_rematches() -> None:
    for standing, drawn in history(1024, 10, random.Random(5), 100):
        by_id = {t.team_id: t for t in standing}
        assert not any(b in by_id[a].opponents for a, b in drawn.pairs)
        assert len(drawn.pairs) == 512
