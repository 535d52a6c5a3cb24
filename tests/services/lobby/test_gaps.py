"""A gap in a followed stream is asked for again while it stays open, and an owner
that does not answer is asked again, not given up on (``edge/gaps.py``)."""

from __future__ import annotations

import pytest

from services.lobby.edge import gaps


class Away(Exception):
    pass


@pytest.fixture(autouse=True)
def quick(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gaps, "AGAIN", 0.001)
    monkeypatch.setattr(gaps, "AWAY", 0.002)


async def test_the_owner_is_asked_until_nothing_is_missing() -> None:
    lacking = [3, 2, 1]  # what each ask leaves missing
    asks = 0

    async def fetch() -> None:
        nonlocal asks
        asks += 1
        lacking.pop()

    await gaps.fill(lambda: bool(lacking), fetch, Away)
    assert asks == 3 and not lacking


async def test_an_owner_away_is_told_and_asked_again() -> None:
    answers: list[Exception | None] = [Away("down"), Away("down"), None]
    told: list[str] = []
    filled = False

    async def fetch() -> None:
        nonlocal filled
        answer = answers.pop(0)
        if answer is not None:
            raise answer
        filled = True

    await gaps.fill(lambda: not filled, fetch, Away, lambda exc: told.append(str(exc)))
    assert filled and told == ["down", "down"]


async def test_an_owner_away_when_the_gap_closed_meanwhile_is_no_error() -> None:
    state = {"missing": True}

    async def fetch() -> None:
        state["missing"] = False  # the events came by the subscription meanwhile
        raise Away("down")

    await gaps.fill(lambda: state["missing"], fetch, Away)


async def test_another_failure_ends_the_fill_and_is_raised() -> None:
    async def fetch() -> None:
        raise ValueError("undecodable")

    with pytest.raises(ValueError):
        await gaps.fill(lambda: True, fetch, Away)


def _stream(store: dict[int, str]) -> tuple[gaps.InOrder[str], list[str], list[int]]:
    """An ordered stream whose owner holds ``store``; what went on, and each ask's version."""
    out: list[str] = []
    asked: list[int] = []

    async def fetch(after: int) -> None:
        asked.append(after)
        for version in sorted(v for v in store if v > after):
            order.take(version, store[version])

    order: gaps.InOrder[str] = gaps.InOrder(out.append, fetch, Away, start=None)
    return order, out, asked


async def test_what_comes_before_the_start_waits_for_it_and_only_what_follows_goes_on() -> None:
    order, out, asked = _stream({})
    order.take(3, "c")
    order.take(5, "e")
    order.take(4, "d")
    assert out == [] and asked == []  # no start yet: nothing goes on, nothing is asked
    order.begin(3)
    assert out == ["d", "e"] and order.version == 5 and not order.pending
    order.take(5, "e")
    assert out == ["d", "e"]  # a duplicate changes nothing


async def test_a_gap_behind_the_start_is_filled_from_the_owner() -> None:
    order, out, asked = _stream({2: "b", 3: "c", 4: "d"})
    order.take(4, "d")
    order.begin(1)
    await order.reach(4, timeout=5)
    assert out == ["b", "c", "d"] and asked == [1]
    order.stop()
