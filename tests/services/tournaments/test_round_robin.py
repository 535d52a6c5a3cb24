"""Round robin by the Berger tables, with optional snake-seeded groups; and the double
round robin, where every pair meets twice, played whole through the driver."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from schemas.tournaments import commands as cmd
from services.tournaments.decide import standings_of
from services.tournaments.formats.round_robin import berger, round_pairs, rounds_of
from services.tournaments.state import fold
from services.tournaments.timers import due_timers

from .driver import MINUTE, STARTS, Run, play_out, registered
from .driver import settings as make_settings


def test_six_teams_follow_fides_berger_table() -> None:
    assert berger(6) == [
        [(1, 6), (2, 5), (3, 4)],
        [(6, 4), (5, 3), (1, 2)],
        [(2, 6), (3, 1), (4, 5)],
        [(6, 5), (1, 4), (2, 3)],
        [(3, 6), (4, 2), (5, 1)],
    ]


def test_an_odd_count_gives_the_phantom_teams_opponent_a_bye() -> None:
    assert berger(5)[0] == [(1, None), (2, 5), (3, 4)]


@settings(max_examples=40, derandomize=True, deadline=None)
@given(n=st.integers(2, 30), groups=st.integers(1, 4))
def test_every_team_meets_every_other_of_its_group_once(n: int, groups: int) -> None:
    groups = max(1, min(groups, n // 2))
    teams = [f"t{i}" for i in range(n)]
    met: list[frozenset[str]] = []
    byes: dict[str, int] = dict.fromkeys(teams, 0)
    for r in range(1, rounds_of(n, groups) + 1):
        pairs, round_byes = round_pairs(teams, r, groups)
        playing = [t for p in pairs for t in p] + round_byes
        assert sorted(playing) == sorted(teams)  # once a round, or the bye
        met += [frozenset(p) for p in pairs]
        for t in round_byes:
            byes[t] += 1
    assert len(met) == len(set(met))
    group_of = {t: i % groups if (i // groups) % 2 == 0 else groups - 1 - i % groups
                for i, t in enumerate(teams)}
    expected = {frozenset(p) for p in combinations(teams, 2) if group_of[p[0]] == group_of[p[1]]}
    assert set(met) == expected
    # A bye a round for a team of an odd group; an even group sits out the odd one's extra rounds.
    assert all(count <= 2 for count in byes.values())


# --- Double round robin: the format added as one file behind the protocol ----------------


def _met(run: Run) -> Counter[tuple[str, str]]:
    """(home, away) of every match played."""
    return Counter((m.pairing.home, m.pairing.away) for m in run.state.matches.values())


@settings(max_examples=12, derandomize=True, deadline=None)
@given(teams=st.integers(4, 9), groups=st.integers(1, 2), seed=st.integers(0, 2**32))
def test_a_double_round_robin_plays_every_pair_twice_home_and_away_to_final_standings(
        teams: int, groups: int, seed: int) -> None:
    run = registered(make_settings("double_round_robin", 16, groups=groups), teams)
    play_out(run, random.Random(seed), draws=True)
    state = run.state
    assert state.status == "finished"
    groups = max(1, min(groups, teams // 2))
    assert len(state.rounds) == 2 * rounds_of(teams, groups)
    met = _met(run)
    # Each pair of a group twice, once each way round; nobody twice in a round.
    assert all(count == 1 for count in met.values())
    assert all((away, home) in met for home, away in met)
    single = {frozenset(p) for r in range(1, rounds_of(teams, groups) + 1)
              for p in round_pairs(state.seeds, r, groups)[0]}
    assert {frozenset(p) for p in met} == single
    for r in state.rounds:
        playing = [t for m in r.match_ids for t in (state.matches[m].pairing.home,
                                                     state.matches[m].pairing.away)]
        assert len(playing) == len(set(playing))
    # The final standings are the ranking, champion first, and the stream folds to them.
    rows = standings_of(state)
    assert state.ranking == tuple(r.team_id for r in rows)
    assert state.champion == rows[0].team_id
    assert rows[0].match_points == max(r.match_points for r in rows)
    assert sum(r.match_points for r in rows) == 2 * len(met)  # two half points a match
    assert fold(run.events) == state


def test_the_return_games_swap_home_and_away_in_the_first_halfs_order() -> None:
    s = make_settings("double_round_robin", 8)
    run = registered(s, 4)
    run.do(cmd.Start(at=STARTS))
    half = rounds_of(4)
    at = STARTS
    for round_no in range(1, 2 * half + 1):
        # The scheduler's pairing timer runs through both halves.
        pause = s.round_interval_seconds * 1000 if round_no > 1 else 0
        assert due_timers(run.state) == {"pair": run.state.turned_at + pause}
        at += MINUTE
        run.do(cmd.PairRound(at=at, seed="ab" * 16))
        for match_id in run.state.rounds[-1].match_ids:
            run.do(cmd.RecordResult(at=at, match_id=match_id, outcome="home",
                                    scores=(500, 300), game_stream=f"game-{match_id}"))
    pairs = [[(run.state.matches[m].pairing.home, run.state.matches[m].pairing.away)
              for m in r.match_ids] for r in run.state.rounds]
    assert pairs[half:] == [[(away, home) for home, away in r] for r in pairs[:half]]
    assert run.state.status == "finished" and due_timers(run.state) == {}
    # Home won every match: each team won its three home games, all level on points.
    assert {r.match_points for r in standings_of(run.state)} == {2 * half}
