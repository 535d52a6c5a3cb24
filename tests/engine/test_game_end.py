"""What ``GameEnded`` says beyond the score: who had abandoned the table, how many
bags each team took, and how a version 1 ending still reads and replays."""

from __future__ import annotations

import msgspec
import pytest

from engine.decide import step
from engine.presets import PRESETS
from engine.replay import verify
from schemas import commands as cmd
from schemas import events as ev
from services.platform.events import game_registry
from tests.engine.helpers import CLUB, bid, deal, fill
from tests.engine.randomgame import play_game


def _events(seed: int, preset: str = "quick") -> list[ev.Event]:
    return [e for _, out in play_game(seed, PRESETS[preset], extras=True) for e in out]


def _away_at_the_end(events: list[ev.Event]) -> tuple[int, ...]:
    away: set[int] = set()
    for e in events:
        if isinstance(e, ev.SeatTakenByBot):
            away.add(e.seat)
        elif isinstance(e, ev.SeatReclaimed):
            away.discard(e.seat)
    return tuple(sorted(away))


@pytest.mark.parametrize("seed", range(12))
def test_abandoned_names_the_seats_a_bot_plays_at_the_end_and_no_one_who_came_back(
        seed: int) -> None:
    events = _events(seed, "house")
    end = events[-1]
    assert isinstance(end, ev.GameEnded)
    assert end.abandoned == _away_at_the_end(events)


def test_some_random_game_has_a_leaver_and_one_who_came_back() -> None:
    """The parametrized games above exercise both cases, not only empty tables."""
    games = [_events(seed, "house") for seed in range(12)]
    assert any(g[-1].abandoned for g in games)  # type: ignore[attr-defined]
    assert any(any(isinstance(e, ev.SeatReclaimed) for e in g) for g in games)


@pytest.mark.parametrize("seed", range(6))
def test_bags_taken_is_every_overtrick_of_the_game_whatever_the_penalties_took_back(
        seed: int) -> None:
    events = _events(seed)
    sheets = [e for e in events if isinstance(e, ev.HandScored)]
    end = events[-1]
    assert isinstance(end, ev.GameEnded)
    assert end.bags_taken == (sum(h.teams[0].bags_gained for h in sheets),
                              sum(h.teams[1].bags_gained for h in sheets))


def test_a_forfeit_by_leaving_is_not_an_abandoned_seat() -> None:
    """Club: the leaver's team loses by ``winner``; no bot ever played the seat."""
    s = bid(deal(CLUB, fill(CLUB), dealer=3), [3, 3, 3, 3])
    _, events = step(s, cmd.LeaveSeat(seat=2))
    end = events[-1]
    assert isinstance(end, ev.GameEnded)
    assert (end.winner, end.forfeited_by, end.abandoned) == (1, 2, ())


def _as_version_2(end: ev.GameEnded) -> bytes:
    data = msgspec.to_builtins(end)
    del data["sealed"], data["deals"]
    return msgspec.msgpack.encode(data)


def _as_version_1(end: ev.GameEnded) -> bytes:
    data = msgspec.msgpack.decode(_as_version_2(end))
    del data["abandoned"], data["bags_taken"]
    return msgspec.msgpack.encode(data)


def test_a_version_1_ending_reads_with_no_leaver_and_no_bags() -> None:
    end = _events(3)[-1]
    assert isinstance(end, ev.GameEnded) and end.bags_taken != (0, 0)
    old = game_registry().decode("GameEnded", 1, _as_version_1(end))
    assert old == msgspec.structs.replace(end, abandoned=(), bags_taken=(0, 0), deals=())


def test_a_log_whose_ending_is_version_1_still_verifies() -> None:
    events = _events(5, "house")
    end = events[-1]
    assert isinstance(end, ev.GameEnded) and end.bags_taken != (0, 0)
    old = game_registry().decode("GameEnded", 1, _as_version_1(end))
    assert isinstance(old, ev.GameEnded)
    assert verify([*events[:-1], old]) is None


def test_a_log_whose_ending_is_version_2_still_verifies() -> None:
    """Version 2 listed no hand scores; the log verifies all the same."""
    events = _events(5, "house")
    end = events[-1]
    assert isinstance(end, ev.GameEnded) and end.deals
    old = game_registry().decode("GameEnded", 2, _as_version_2(end))
    assert isinstance(old, ev.GameEnded) and old.deals == ()
    assert verify([*events[:-1], old]) is None


def test_an_ending_that_lies_about_a_hand_score_does_not_verify() -> None:
    events = _events(5, "house")
    end = events[-1]
    assert isinstance(end, ev.GameEnded) and end.deals
    (home, away), *rest = end.deals
    wrong = msgspec.structs.replace(end, deals=((home + 10, away), *rest))
    divergence = verify([*events[:-1], wrong])
    assert divergence is not None and divergence.index == len(events) - 1


def test_a_version_2_ending_that_lies_about_bags_does_not_verify() -> None:
    events = _events(5, "house")
    end = events[-1]
    assert isinstance(end, ev.GameEnded)
    wrong = msgspec.structs.replace(end, bags_taken=(end.bags_taken[0] + 1, end.bags_taken[1]))
    divergence = verify([*events[:-1], wrong])
    assert divergence is not None and divergence.index == len(events) - 1
