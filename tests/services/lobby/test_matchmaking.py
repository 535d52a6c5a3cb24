"""The ranked matcher, as properties over any queue and as rows worked by hand."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from services.lobby.ranked.matching import Match, MatchRules, Ticket, match

RULES = MatchRules()
NOW = 10_000.0


@st.composite
def tickets(draw: st.DrawFn, max_size: int = 40) -> list[Ticket]:
    count = draw(st.integers(0, max_size))
    out = []
    for n in range(count):
        pair = draw(st.booleans())
        ratings = tuple(draw(st.integers(800, 2400)) for _ in range(2 if pair else 1))
        players = tuple(f"p{n}{'ab'[k]}" for k in range(len(ratings)))
        out.append(Ticket(ticket_id=f"t{n}", players=players, ratings=ratings,
                          since=NOW - draw(st.floats(0, 200)),
                          leaver=draw(st.booleans())))
    return out


def _by_id(queue: list[Ticket]) -> dict[str, Ticket]:
    return {t.ticket_id: t for t in queue}


@settings(max_examples=300, deadline=None)
@given(tickets())
def test_no_ticket_is_in_two_matches(queue: list[Ticket]) -> None:
    taken = [t for m in match(queue, NOW) for t in m.tickets]
    assert len(taken) == len(set(taken))


@settings(max_examples=300, deadline=None)
@given(tickets())
def test_every_match_is_two_teams_of_two_people_from_its_tickets(queue: list[Ticket]) -> None:
    by_id = _by_id(queue)
    for m in match(queue, NOW):
        seated = [p for team in m.teams for p in team]
        assert len(seated) == 4 == len(set(seated))
        assert sorted(seated) == sorted(p for t in m.tickets for p in by_id[t].players)


@settings(max_examples=300, deadline=None)
@given(tickets())
def test_a_pair_plays_on_one_team(queue: list[Ticket]) -> None:
    by_id = _by_id(queue)
    for m in match(queue, NOW):
        for t in m.tickets:
            if len(by_id[t].players) == 2:
                assert set(by_id[t].players) in ({*m.teams[0]}, {*m.teams[1]})


@settings(max_examples=300, deadline=None)
@given(tickets())
def test_every_ticket_sees_only_ratings_inside_its_window(queue: list[Ticket]) -> None:
    by_id = _by_id(queue)
    for m in match(queue, NOW):
        group = [by_id[t] for t in m.tickets]
        for a in group:
            window = RULES.window_after(NOW - a.since)
            assert all(abs(a.rating - b.rating) <= window for b in group)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from([(1, 1, 1, 1), (2, 2), (2, 1, 1), (1, 2, 1), (1, 1, 2)]),
       st.lists(st.integers(0, 4000), min_size=4, max_size=4),
       st.lists(st.floats(90, 10_000), min_size=4, max_size=4))
def test_four_players_waiting_90_seconds_always_match(
        sizes: tuple[int, ...], ratings: list[int], waits: list[float]) -> None:
    queue, k = [], 0
    for n, size in enumerate(sizes):
        queue.append(Ticket(ticket_id=f"t{n}", players=tuple(f"p{k + j}" for j in range(size)),
                            ratings=tuple(ratings[k:k + size]), since=NOW - waits[n]))
        k += size
    (only,) = match(queue, NOW)
    assert sorted(only.tickets) == sorted(t.ticket_id for t in queue)


@settings(max_examples=200, deadline=None)
@given(tickets(max_size=12))
def test_when_everyone_has_waited_90_seconds_a_possible_four_is_formed(
        queue: list[Ticket]) -> None:
    old = [Ticket(t.ticket_id, t.players, t.ratings, since=NOW - 90) for t in queue]
    pairs = sum(len(t.players) == 2 for t in old)
    solos = len(old) - pairs
    if solos >= 4 or pairs >= 2 or (pairs and solos >= 2):
        assert match(old, NOW)


def _solo(n: int, rating: int, waited: float = 0.0, **extra: object) -> Ticket:
    return Ticket(ticket_id=f"s{n}", players=(f"p{n}",), ratings=(rating,), since=NOW - waited,
                  **extra)  # type: ignore[arg-type]


def test_four_solos_split_highest_and_lowest_against_the_middle_two() -> None:
    (m,) = match([_solo(1, 1500), _solo(2, 1560), _solo(3, 1540), _solo(4, 1480)], NOW)
    assert m.teams == (("p4", "p2"), ("p1", "p3"))
    assert m.team_ratings == (1520, 1520) and m.gap == 0 and m.spread == 80


def test_a_pair_plays_two_solos_as_a_team() -> None:
    pair = Ticket(ticket_id="pr", players=("a", "b"), ratings=(1450, 1550), since=NOW)
    (m,) = match([pair, _solo(1, 1490), _solo(2, 1530)], NOW)
    assert m.teams == (("a", "b"), ("p1", "p2")) and m.gap == 10


def test_a_fresh_window_is_100_and_grows_by_100_every_15_seconds() -> None:
    assert [RULES.window_after(s) for s in (0, 14.9, 15, 29.9, 30, 45, 89.9)] == \
        [100, 100, 200, 200, 300, 400, 600]
    assert RULES.window_after(90) == math.inf


def test_fresh_tickets_too_far_apart_wait_and_match_once_their_windows_grow() -> None:
    far = [_solo(1, 1500), _solo(2, 1500), _solo(3, 1650), _solo(4, 1650)]
    assert match(far, NOW) == []
    later = [Ticket(t.ticket_id, t.players, t.ratings, since=NOW - 15) for t in far]
    assert len(match(later, NOW)) == 1


def test_the_cheapest_groups_win_when_tickets_compete() -> None:
    """Five close solos and one far off: the four closest make the match."""
    queue = [_solo(1, 1500), _solo(2, 1510), _solo(3, 1520), _solo(4, 1530), _solo(5, 1590)]
    (m,) = match(queue, NOW)
    assert sorted(m.tickets) == ["s1", "s2", "s3", "s4"]


def test_the_same_four_as_last_game_costs_more() -> None:
    four = frozenset({"p1", "p2", "p3", "p4"})
    again = [_solo(n, 1500, last_players=four) for n in range(1, 5)]
    fresh = [_solo(n, 1500) for n in range(1, 5)]
    assert match(again, NOW)[0].cost - match(fresh, NOW)[0].cost == RULES.same_four


def test_the_same_solo_partner_as_last_game_costs_more() -> None:
    # p1 and p4 would be partners (highest + lowest); they were last game too.
    queue = [_solo(1, 1480, last_partner="p4"), _solo(2, 1500), _solo(3, 1500), _solo(4, 1520)]
    plain = [_solo(1, 1480), _solo(2, 1500), _solo(3, 1500), _solo(4, 1520)]
    assert match(queue, NOW)[0].cost - match(plain, NOW)[0].cost == RULES.same_partner


def test_a_recent_leaver_among_clean_players_costs_more() -> None:
    mixed = [_solo(1, 1500, leaver=True)] + [_solo(n, 1500) for n in range(2, 5)]
    all_leavers = [_solo(n, 1500, leaver=True) for n in range(1, 5)]
    clean = [_solo(n, 1500) for n in range(1, 5)]
    assert match(mixed, NOW)[0].cost - match(clean, NOW)[0].cost == RULES.leaver_with_clean
    assert match(all_leavers, NOW)[0].cost == match(clean, NOW)[0].cost


def test_waiting_earns_a_bonus_per_missed_cycle_up_to_the_cap() -> None:
    assert [RULES.bonus_after(s) for s in (0, 4.9, 5, 12, 49, 50, 500)] == \
        [0, 0, 10, 20, 90, 100, 100]
    fresh = match([_solo(n, 1500) for n in range(1, 5)], NOW)[0]
    waited = match([_solo(n, 1500, waited=12) for n in range(1, 5)], NOW)[0]
    assert fresh.cost - waited.cost == 4 * 20


def test_a_match_names_its_seats_by_team() -> None:
    (m,) = match([_solo(n, 1500) for n in range(1, 5)], NOW)
    assert isinstance(m, Match) and len(m.teams) == 2 and all(len(t) == 2 for t in m.teams)
