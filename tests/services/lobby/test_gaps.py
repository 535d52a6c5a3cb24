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
