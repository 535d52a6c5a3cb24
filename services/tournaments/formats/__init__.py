"""Tournament formats, each one file behind the ``Format`` protocol (``base.py``), and
the registry that names them. Pure: no clock, no IO, no random generator; a round's seed
arrives as an argument, so a replay draws and pairs exactly as the first run did.

A new format is its module here, ending in ``FORMAT: Format = ...`` (so the type
checker holds it to the protocol), and its line in ``_MODULES``; its name joins
``FormatKind`` in ``schemas/tournaments/events.py`` (a test holds the two lists equal).
"""

from __future__ import annotations

from importlib import import_module

from services.tournaments.formats.base import Format, TieBreakError

_MODULES = (
    "single_elimination",
    "double_elimination",
    "round_robin",
    "swiss",
    "double_round_robin",
)

FORMATS: dict[str, Format] = {
    f.kind: f for f in (import_module(f"{__name__}.{m}").FORMAT for m in _MODULES)}


def of(kind: str) -> Format:
    """The format named ``kind`` (``FormatOptions`` decoding refuses any other name)."""
    return FORMATS[kind]


__all__ = ["FORMATS", "Format", "TieBreakError", "of"]
