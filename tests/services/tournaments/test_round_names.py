"""What each format calls its rounds, and what decides its standings: a knockout ranks
by how far each team went and never shows a Swiss tie-break; the view carries both."""

from __future__ import annotations

import random

import msgspec
import pytest

from schemas.tournaments import commands as cmd
from schemas.tournaments import events as ev
from services.tournaments import formats
from services.tournaments.decide import standings_of

from .driver import MINUTE, STARTS, Run, play_out, registered
from .driver import settings as make_settings


def started(kind: ev.FormatKind, teams: int, **options: object) -> Run:
    s = msgspec.structs.replace(make_settings(kind, 16, **options), min_teams=2)
    run = registered(s, teams)
    run.do(cmd.Start(at=STARTS))
    return run


def names(run: Run) -> list[tuple[str, int, str]]:
    return [(r.stage, r.round_no, r.name)
            for r in formats.of(run.state.settings.format.kind).round_names(run.state)]  # type: ignore[union-attr]


def win_open_matches(run: Run, at: int = STARTS + MINUTE) -> None:
    """The home team wins every match waiting for a result."""
    for m in [m for m in run.state.matches.values() if m.outcome is None]:
        run.do(cmd.RecordResult(at=at, match_id=m.pairing.match_id, outcome="home",
                                scores=(500, 300)))


def test_a_knockout_calls_its_last_rounds_the_final_semi_finals_and_quarter_finals() -> None:
    assert names(started("single_elimination", 8, third_place=True)) == [
        ("bracket", 1, "Quarter-finals"), ("bracket", 2, "Semi-finals"),
        ("bracket", 3, "Final"), ("third_place", 3, "Third-place match")]
    assert [n for _, _, n in names(started("single_elimination", 16))] == [
        "Round 1", "Quarter-finals", "Semi-finals", "Final"]
    assert names(started("single_elimination", 2)) == [("bracket", 1, "Final")]


def test_double_elimination_names_both_sides_and_the_grand_final() -> None:
    assert names(started("double_elimination", 8)) == [
        ("winners", 1, "Winners' quarter-finals"), ("winners", 2, "Winners' semi-finals"),
        ("winners", 3, "Winners' final"),
        ("losers", 1, "Losers' round 1"), ("losers", 2, "Losers' round 2"),
        ("losers", 3, "Losers' round 3"), ("losers", 4, "Losers' final"),
        ("grand_final", 5, "Grand final"), ("grand_final", 6, "Grand final reset")]
    assert names(started("double_elimination", 8, grand_final_reset=False))[-1] == (
        "grand_final", 5, "Grand final")


@pytest.mark.parametrize(("kind", "teams", "want"), [
    ("round_robin", 4, ["Round 1", "Round 2", "Round 3"]),
    ("double_round_robin", 4, [f"Round {n}" for n in range(1, 7)]),
    ("swiss", 8, ["Round 1", "Round 2", "Final round"]),
])
def test_rounds_paired_round_by_round_are_numbered(kind: ev.FormatKind, teams: int,
                                                 want: list[str]) -> None:
    run = started(kind, teams, **({"rounds": 3} if kind == "swiss" else {}))
    assert names(run) == [("rounds", n, name) for n, name in enumerate(want, 1)]


def test_no_round_is_named_before_the_start() -> None:
    run = registered(make_settings("single_elimination", 8), 4)
    assert formats.of("single_elimination").round_names(run.state) == []
    assert formats.of("swiss").round_names(registered(make_settings(), 4).state) == []


@pytest.mark.parametrize(("kind", "columns"), [
    ("single_elimination", ("reached", "eliminated", "match_points", "differential", "bags",
                            "points", "seed")),
    ("double_elimination", ("reached", "eliminated", "match_points", "differential", "bags",
                            "points", "seed")),
    ("round_robin", ("match_points", "head_to_head", "differential", "bags", "points",
                     "seed")),
    ("double_round_robin", ("match_points", "head_to_head", "differential", "bags", "points",
                            "seed")),
    ("swiss", ("match_points", "buchholz", "differential", "bags", "points", "seed")),
])
def test_each_format_says_which_standings_columns_decide_it(
        kind: ev.FormatKind, columns: tuple[str, ...]) -> None:
    assert formats.of(kind).standings_columns(make_settings(kind, 8)) == columns
    assert "buchholz" not in formats.of(kind).standings_columns(make_settings(kind, 8)) or (
        kind == "swiss")


def test_the_organizers_tiebreak_order_is_the_columns_order() -> None:
    s = make_settings("swiss", 8, tiebreaks=("points", "buchholz"))
    assert formats.of("swiss").standings_columns(s) == (
        "match_points", "points", "buchholz", "seed")


def test_a_knockouts_standings_rank_by_the_round_reached() -> None:
    run = started("single_elimination", 6)  # seeds 1 and 2 have byes
    rows = {r.team_id: r for r in standings_of(run.state)}
    assert (rows["t01"].reached, rows["t01"].reached_round, rows["t01"].eliminated) == (
        2, "Semi-finals", False)
    assert (rows["t03"].reached, rows["t03"].reached_round) == (1, "Quarter-finals")
    win_open_matches(run)  # quarter-finals: t03 and t04 win
    rows = {r.team_id: r for r in standings_of(run.state)}
    assert {t: (r.reached, r.eliminated) for t, r in rows.items()} == {
        "t01": (2, False), "t02": (2, False), "t03": (2, False), "t04": (2, False),
        "t05": (1, True), "t06": (1, True)}
    assert [r.team_id for r in standings_of(run.state)][-2:] == ["t05", "t06"]


def test_a_finished_knockouts_standings_are_its_ranking() -> None:
    for kind in ("single_elimination", "double_elimination"):
        run = registered(make_settings(kind, 16, third_place=True), 7)
        play_out(run, random.Random(7))
        rows = standings_of(run.state)
        assert tuple(r.team_id for r in rows) == run.state.ranking
        assert [r.rank for r in rows] == list(range(1, 8))
        champion, runner_up = rows[0], rows[1]
        assert champion.team_id == run.state.champion and champion.eliminated is False
        if kind == "single_elimination":
            # The third-place match's winner won in the round it reached: not eliminated.
            assert [r.eliminated for r in rows] == [False, True, False, True, True, True, True]
            assert [r.reached_round for r in rows[:4]] == [
                "Final", "Final", "Third-place match", "Third-place match"]
        else:
            assert runner_up.eliminated is True and all(r.eliminated for r in rows[1:])
            assert champion.reached_round in ("Grand final", "Grand final reset")
            assert runner_up.reached_round == champion.reached_round


def test_round_formats_standings_carry_no_knockout_figures() -> None:
    run = registered(make_settings("swiss", 8), 8)
    play_out(run, random.Random(3))
    assert {(r.reached, r.reached_round, r.eliminated) for r in standings_of(run.state)} == {
        (None, None, None)}
