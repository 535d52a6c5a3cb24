"""The queue's small rules, as properties: who sits where in a match offered, whom a
failed ready check blames, the window a waiting player is told, the waits reported."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from schemas.matches import MatchSeat, OpenMatch
from services.lobby.ranked.matching import MatchRules, Ticket, match
from services.lobby.ranked.matchmaker import seats_of
from services.lobby.ranked.queue import blamed, percentile, window_of
from tests.services.lobby.test_matchmaking import NOW, tickets

RULES = MatchRules()


@given(tickets())
def test_partners_sit_across_the_table_and_a_pair_stays_together(queue: list[Ticket]) -> None:
    by_id = {t.ticket_id: t for t in queue}
    for m in match(queue, NOW, RULES):
        seats = seats_of(m)
        assert sorted(seats) == sorted(p for t in m.tickets for p in by_id[t].players)
        for t in m.tickets:
            if len(by_id[t].players) == 2:
                a, b = by_id[t].players
                assert abs(seats.index(a) - seats.index(b)) == 2


def _req(players: list[str]) -> OpenMatch:
    return OpenMatch(match_id="m", seats=tuple(MatchSeat(player_id=p) for p in players),  # type: ignore[arg-type]
                     origin="queue")


@given(st.sets(st.integers(0, 3)), st.sets(st.integers(0, 3)))
def test_a_decline_blames_only_the_decliners_else_the_absent(absent: set[int],
                                                             declined: set[int]) -> None:
    req = _req(["a", "b", "c", "d"])
    who = blamed(req, tuple(sorted(absent | declined)), tuple(sorted(declined)))
    want = declined if declined else absent
    assert who == {"abcd"[i] for i in want}


@given(st.floats(0, 600))
def test_the_window_told_widens_with_the_wait_and_opens_after_ninety_seconds(
        waited: float) -> None:
    now = 1_000_000_000
    told = window_of(RULES, now - int(waited * 1000), now)
    if waited >= RULES.anyone_after:
        assert told is None
    else:
        assert told is not None and 100 <= told <= 100 + 100 * int(waited // 15) + 1


def test_percentiles_of_waits_by_hand() -> None:
    assert percentile([], 0.9) == 0
    assert percentile([5], 0.9) == 5
    waits = list(range(1, 11))
    assert (percentile(waits, 0.5), percentile(waits, 0.9)) == (6, 10)
