"""Tournament formats, each one file behind the ``Format`` protocol (``base.py``), and
the registry that names them. Pure: no clock, no IO, no random generator; a round's seed
arrives as an argument, so a replay draws and pairs exactly as the first run did.

A new format is its module here and its line in ``FORMATS``; its name joins
``FormatKind`` in ``schemas/tournament_events.py`` (a test holds the two lists equal).
"""

from __future__ import annotations

from services.tournaments.formats import (
    double_elimination,
    double_round_robin,
    round_robin,
    single_elimination,
    swiss,
)
from services.tournaments.formats.base import Format, TieBreakError

FORMATS: dict[str, Format] = {f.kind: f for f in (
    single_elimination.FORMAT,
    double_elimination.FORMAT,
    round_robin.FORMAT,
    swiss.FORMAT,
    double_round_robin.FORMAT,
)}


def of(kind: str) -> Format:
    """The format named ``kind`` (``FormatOptions`` decoding refuses any other name)."""
    return FORMATS[kind]


__all__ = ["FORMATS", "Format", "TieBreakError", "of"]
