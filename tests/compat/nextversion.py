"""The next version of the platform, made the way a developer would make it: a copy of
today's source tree with one change, ``TrickWon`` version 2, which adds a field.

The change: a won trick names its winning card (``winning_card``). The engine fills it
in; an upcaster lifts a version 1 ``TrickWon`` by reading it from the event's own cards,
so today's events read as the next version's. ``python -m tests.compat.nextversion
GAME_ID...`` (run with the tree first on ``PYTHONPATH``) verifies stored games with
whichever code it finds there: the roll test runs it with both versions.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
from pathlib import Path

from tests.services.lobby.harness import ROOT

PACKAGES = ("engine", "schemas", "services", "spades_client")

# (file, text today, text in the next version): each must be found exactly once.
CHANGE = (
    ("schemas/events.py",
     "class TrickWon(Event, frozen=True):\n    trick_no: int\n    seat: int\n"
     "    cards: tuple[str, str, str, str]  # in seat order\n",
     "class TrickWon(Event, frozen=True):\n    VERSION: ClassVar[int] = 2\n    trick_no: int\n"
     "    seat: int\n    cards: tuple[str, str, str, str]  # in seat order\n"
     "    winning_card: str = \"\"\n"),
    ("engine/trickplay.py",
     "tx.emit(ev.TrickWon(trick_no=trick_no, seat=winner,",
     "tx.emit(ev.TrickWon(trick_no=trick_no, seat=winner, winning_card=CODES[trick[(winner - "
     "leader) & 3]],"),
    ("schemas/versions/upcasters.py",
     "GAME_UPCASTERS: dict[tuple[str, int], Upcaster] = {\n",
     "def _trick_won_v1(data: dict[str, Any]) -> dict[str, Any]:\n"
     "    return {**data, \"winning_card\": data[\"cards\"][data[\"seat\"]]}\n\n\n"
     "GAME_UPCASTERS: dict[tuple[str, int], Upcaster] = {\n"
     "    (\"TrickWon\", 1): _trick_won_v1,\n"),
)


def build(where: Path) -> Path:
    """Today's tree copied to ``where`` with the change made; the new tree's root."""
    for package in PACKAGES:
        shutil.copytree(ROOT / package, where / package,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    shutil.copy(ROOT / "pyproject.toml", where / "pyproject.toml")
    for name, before, after in CHANGE:
        path = where / name
        text = path.read_text()
        if text.count(before) != 1:
            raise AssertionError(f"{name} no longer reads as the change expects: {before!r}")
        path.write_text(text.replace(before, after))
    return where


async def unverified(game_ids: list[str]) -> list[str]:
    from tests.e2e.rolling import unverified as check

    return await check(os.environ["DATABASE_URL"], game_ids)


def main() -> None:
    from schemas.events import TrickWon

    bad = asyncio.run(unverified(sys.argv[1:]))
    print(f"TrickWon v{TrickWon.VERSION}: {len(sys.argv) - 1 - len(bad)} verified, bad: {bad}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
