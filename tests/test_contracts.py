"""The contracts services share through ``schemas``: a match's ids, and who sits with whom."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from schemas.matches import game_of, table_of
from schemas.seats import TEAM_SEATS, opponents_of, partner_of, seated, team_of, teams_of


def test_a_match_s_ids_stay_what_stored_matches_were_given() -> None:
    # Games and tables already stored were named this way: the derivation never changes.
    assert table_of("q-1") == "ec2d0d13-ab9e-5ac3-bceb-386cbc508a12"
    assert game_of("q-1") == "0a490701e23e5f5ebfd5044c39838334"


def test_a_match_s_table_and_game_differ_from_another_match_s() -> None:
    assert game_of("q-1") != game_of("q-2") and table_of("q-1") != table_of("q-2")


def test_partners_sit_across_and_share_a_team() -> None:
    for seat in range(4):
        assert team_of(partner_of(seat)) == team_of(seat)
        assert partner_of(partner_of(seat)) == seat
        assert {team_of(o) for o in opponents_of(seat)} == {1 - team_of(seat)}
    assert tuple(tuple(s for s in range(4) if team_of(s) == t) for t in (0, 1)) == TEAM_SEATS


@given(st.lists(st.text(max_size=3), min_size=4, max_size=4))
def test_seating_two_teams_and_reading_them_back_agree(four: list[str]) -> None:
    teams = teams_of(four)
    assert seated(*teams) == tuple(four)
    for t, seats in enumerate(TEAM_SEATS):
        assert tuple(four[s] for s in seats) == teams[t]
