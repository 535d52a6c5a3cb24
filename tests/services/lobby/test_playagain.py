"""Playing again, as pure decisions over a table row: who keeps a seat, who is asked,
what a leaver leaves behind."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from services.lobby.base.errors import LobbyError
from services.lobby.tables import playagain, store

PEOPLE = [f"p{i}" for i in range(6)]


@st.composite
def finished_tables(draw: st.DrawFn) -> store.TableRow:
    """A table whose game ended: its host at seat 0, each other seat a person (each at
    most once), a bot or free."""
    people = draw(st.permutations(PEOPLE))
    seats = []
    for i in range(4):
        kind = "person" if i == 0 else draw(st.sampled_from(["person", "bot", "free"]))
        seats.append(store.Seat(player_id=people[i], name=people[i]) if kind == "person"
                     else store.Seat(bot="basic", name=f"Bot {i + 1}") if kind == "bot"
                     else store.Seat())
    abandon = draw(st.sampled_from(["bot", "forfeit"]))
    return store.TableRow(table_id="t", host=people[0], private=True, code="ABCDEF",
                          rules={"abandon": abandon}, preset="house", seats=tuple(seats),
                          state="over", game_id="g1")


def people_of(t: store.TableRow) -> list[str]:
    return [s.player_id for s in t.seats if s.player_id]


@given(finished_tables(), st.lists(st.sampled_from(PEOPLE), max_size=8))
def test_the_next_game_seats_exactly_those_who_agreed_where_they_sat(
        t: store.TableRow, askers: list[str]) -> None:
    people = people_of(t)
    for p in [people[-1]] + [a for a in askers if a in people]:
        t = playagain.ask(t, p)
    nxt = playagain.playing_on(t)
    agreed = set(t.play_again or ())
    for before, after in zip(t.seats, nxt, strict=True):
        if before.player_id in agreed or before.bot or before.free:
            assert after == before  # an agreed person, a bot or a free seat stays as it is
        else:
            assert (after.player_id, after.bot) == (None, "basic")  # not agreed: a bot plays
    assert {s.player_id for s in nxt if s.player_id} == agreed & set(people_of(t))


@given(finished_tables(), st.lists(st.sampled_from(PEOPLE), max_size=8))
def test_asking_again_changes_nothing_and_all_agreeing_is_ready_unless_a_seat_is_free(
        t: store.TableRow, askers: list[str]) -> None:
    people = people_of(t)
    for p in [a for a in askers if a in people] + people:
        t = playagain.ask(t, p)
        assert playagain.ask(t, p) == t
    assert t.state == "open" and t.game_id is None
    assert playagain.everyone_agreed(t) == all(not s.free for s in t.seats)


@given(finished_tables(), st.data())
def test_one_who_leaves_after_a_game_leaves_a_bot_or_a_free_seat_as_the_rules_say(
        t: store.TableRow, data: st.DataObject) -> None:
    people = people_of(t)
    t = playagain.ask(t, people[0])
    leaver = data.draw(st.sampled_from(people))
    seat = playagain.seat_of(t, leaver)
    assert seat is not None
    after = playagain.stood_up(t, seat, leaver)
    assert playagain.seat_of(after, leaver) is None
    assert leaver not in (after.play_again or ())
    if t.rules["abandon"] == "bot":
        assert after.seats[seat].bot == "basic" and (playagain.agreed(after) or [])[seat]
    else:
        assert after.seats[seat].free and not (playagain.agreed(after) or [True])[seat]


def test_only_a_seated_person_asks_and_only_after_a_game() -> None:
    t = store.TableRow(table_id="t", host="p0", private=False, code=None, rules={},
                       preset="house", seats=(store.Seat(player_id="p0", name="p0"),
                                              *(store.Seat(),) * 3))
    cases = [(t, "p9", "not_seated"), (t, "p0", "no_game_yet"),
             (t.with_(state="playing", game_id="g"), "p0", "game_running")]
    for row, who, code in cases:
        with pytest.raises(LobbyError) as refused:
            playagain.ask(row, who)
        assert (refused.value.status, refused.value.code) == (409, code)


@given(finished_tables())
def test_the_agreement_shows_while_open_and_outlives_a_start_that_failed(
        t: store.TableRow) -> None:
    t = playagain.ask(t, people_of(t)[0])
    shown = playagain.agreed(t)
    assert shown is not None and shown[0]
    playing = t.with_(state="playing", game_id="g2")
    assert playagain.agreed(playing) is None and not playagain.everyone_agreed(playing)
    reopened = playing.with_(state="open", game_id=None)  # no game worker answered
    assert playagain.agreed(reopened) == shown


@given(finished_tables())
def test_a_ranked_or_tournament_match_is_not_played_again(t: store.TableRow) -> None:
    """A match's table (private, no room code) seated people the queue or a tournament
    chose: another game there would be an unrated one nobody asked for."""
    match_table = t.with_(code=None)
    with pytest.raises(LobbyError) as refused:
        playagain.ask(match_table, people_of(t)[0])
    assert refused.value.code == "match_table"
    assert playagain.ask(t, people_of(t)[0]).state == "open"  # a person's table plays again
