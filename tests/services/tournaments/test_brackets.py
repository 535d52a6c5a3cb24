"""Elimination brackets: where seeds sit, who gets the byes, how losers drop, and that a
bracket played with any results ends with one champion."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schemas.tournaments.events import Outcome
from services.tournaments.formats import bracket, double_elimination, single_elimination
from services.tournaments.formats.seeding import bracket_size, snake, standard_order

SETTINGS = settings(max_examples=60, derandomize=True, deadline=None)


def seeds(n: int) -> list[str]:
    return [f"s{i}" for i in range(1, n + 1)]


def play(matches: list, n: int,
         rng: random.Random) -> tuple[dict[str, bracket.Slot], list[tuple[str, str, str]]]:
    """Play every match as it becomes ready; returns the slots and (match, home, away)."""
    outcomes: dict[str, Outcome] = {}
    played: list[tuple[str, str, str]] = []
    while True:
        slots = bracket.resolve(matches, seeds(n), outcomes)
        ready = [m.match_id for m in matches if slots[m.match_id].ready]
        if not ready:
            return slots, played
        for match_id in ready:
            s = slots[match_id]
            assert s.home and s.away  # a ready match has both sides
            played.append((match_id, s.home, s.away))
            outcomes[match_id] = rng.choice(["home", "away"])


def test_standard_order_keeps_the_top_seeds_apart() -> None:
    assert standard_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    assert standard_order(16)[:4] == [1, 16, 8, 9]
    assert bracket_size(5) == 8 and bracket_size(8) == 8 and bracket_size(2) == 2


def test_standard_order_refuses_a_size_that_is_not_a_power_of_two() -> None:
    with pytest.raises(ValueError):
        standard_order(6)


def test_snake_seeding_deals_back_and_forth() -> None:
    assert snake(8, 3) == [[0, 5, 6], [1, 4, 7], [2, 3]]


def test_byes_go_to_the_top_seeds() -> None:
    matches = single_elimination.draw(5)
    slots = bracket.resolve(matches, seeds(5), {})
    first = [slots[m.match_id] for m in matches if m.round_no == 1]
    assert sorted(s.winner for s in first if s.winner) == ["s1", "s2", "s3"]
    assert [(s.home, s.away) for s in first if s.ready] == [("s4", "s5")]


def test_third_place_is_between_the_semi_final_losers() -> None:
    matches = single_elimination.draw(4, third_place=True)
    assert [m.match_id for m in matches] == ["W1-1", "W1-2", "3P", "W2-1"]
    slots = bracket.resolve(matches, seeds(4), {"W1-1": "home", "W1-2": "away"})
    assert (slots["3P"].home, slots["3P"].away) == ("s4", "s2")
    assert (slots["W2-1"].home, slots["W2-1"].away) == ("s1", "s3")


def test_a_double_forfeit_lets_the_next_opponent_through() -> None:
    matches = single_elimination.draw(4)
    slots = bracket.resolve(matches, seeds(4), {"W1-1": "double_forfeit", "W1-2": "home"})
    final = slots["W2-1"]
    assert (final.home, final.away, final.winner) == ("", "s2", "s2")
    assert bracket.champion(matches, slots) == "s2"


def test_grand_final_reset_is_played_only_when_the_losers_side_wins() -> None:
    matches = double_elimination.draw(4)
    decided: dict[str, Outcome] = {
        "W1-1": "home", "W1-2": "home", "L1-1": "home", "W2-1": "home", "L2-1": "home"}
    held = bracket.resolve(matches, seeds(4), {**decided, "GF": "home"})
    assert held["GF2"].winner == bracket.EMPTY
    assert bracket.champion(matches, held) == "s1"
    reset = bracket.resolve(matches, seeds(4), {**decided, "GF": "away"})
    assert reset["GF2"].ready
    assert bracket.champion(matches, reset) is None
    done = bracket.resolve(matches, seeds(4), {**decided, "GF": "away", "GF2": "away"})
    assert bracket.champion(matches, done) == "s4"  # s4 won the losers' side


def test_without_reset_the_first_grand_final_decides() -> None:
    matches = double_elimination.draw(4, reset=False)
    assert matches[-1].match_id == "GF"
    decided: dict[str, Outcome] = {
        "W1-1": "home", "W1-2": "home", "L1-1": "home", "W2-1": "home", "L2-1": "home",
        "GF": "away"}
    assert bracket.champion(matches, bracket.resolve(matches, seeds(4), decided)) == "s4"


@SETTINGS
@given(n=st.integers(2, 80), third=st.booleans(), seed=st.integers(0, 2**32))
def test_single_elimination_has_one_champion_after_n_minus_one_wins(
        n: int, third: bool, seed: int) -> None:
    matches = single_elimination.draw(n, third_place=third)
    slots, played = play(matches, n, random.Random(seed))
    assert bracket.done(slots)
    champion = bracket.champion(matches, slots)
    assert champion in seeds(n)
    assert len(played) == n - 1 + (third and n >= 4)
    lost = [s.loser for m, s in slots.items() if s.loser and m != "3P"]
    assert sorted([*lost, champion]) == sorted(seeds(n))


@SETTINGS
@given(n=st.integers(2, 80), reset=st.booleans(), seed=st.integers(0, 2**32))
def test_double_elimination_puts_out_every_team_but_the_champion_twice(
        n: int, reset: bool, seed: int) -> None:
    matches = double_elimination.draw(n, reset=reset)
    slots, played = play(matches, n, random.Random(seed))
    assert bracket.done(slots)
    champion = bracket.champion(matches, slots)
    losses = {t: 0 for t in seeds(n)}
    for s in slots.values():
        if s.loser:
            losses[s.loser] += 1
    assert champion is not None and losses[champion] <= 1
    # Without a reset the winners' champion is out after losing the grand final once.
    gf = slots["GF"]
    once = {gf.home} if not reset and gf.loser == gf.home else set()
    assert all(count == (1 if t in once else 2)
               for t, count in losses.items() if t != champion)
    # Each team plays once a round at most: a match only opens when both sides are known.
    assert len({m for m, _, _ in played}) == len(played)


@SETTINGS
@given(k=st.integers(3, 7), seed=st.integers(0, 2**32))
def test_teams_dropping_from_the_winners_side_never_meet_at_once_a_team_they_met(
        k: int, seed: int) -> None:
    """From the winners' second round on, a dropped team's first losers' match is
    never a rematch (Challonge's routing; with 4 teams it cannot be avoided)."""
    n = 2**k
    matches = double_elimination.draw(n)
    by_id = {m.match_id: m for m in matches}
    _, played = play(matches, n, random.Random(seed))
    met: set[frozenset[str]] = set()
    for match_id, home, away in played:
        m = by_id[match_id]
        dropped_in = m.away.kind == "loser" and m.away.ref.startswith("W2-")
        if dropped_in:
            assert frozenset((home, away)) not in met, match_id
        met.add(frozenset((home, away)))
