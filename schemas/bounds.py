"""The bounds every value a client sends is held to, in one place.

A NUL in a text field is refused by Postgres mid-query and an integer past 64 bits by
asyncpg; both used to surface as 500s. Bodies and frames use these ``Annotated``
types (msgspec checks them while decoding), and query parameters use the same
patterns and limits through ``services/lobby/params.py``: bad input is a typed 400
before any handler runs.
"""

from __future__ import annotations

from typing import Annotated

import msgspec

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
# Times in ms since the epoch, up to the last millisecond of the year 9999.
LAST_MS = 253_402_300_799_999



def whole(body: str) -> str:
    """A pattern the whole value must match. ``^...$`` alone lets one trailing newline
    through (``$`` matches before it, in Python as in msgspec); the lookahead does not.
    Written so JSON Schema (ECMA) readers of the OpenAPI document understand it too."""
    return f"^{body}(?!\n)$"


# One line of text: no control character at all (NUL, tab, newline, DEL ...).
LINE_PATTERN = whole(r"[^\x00-\x1f\x7f]*")
# Free text: line breaks and tabs allowed, no other control character.
TEXT_PATTERN = r"^[^\x00-\x08\x0b\x0c\x0e-\x1f\x7f]*$"

Int64 = Annotated[int, msgspec.Meta(ge=INT64_MIN, le=INT64_MAX)]
Count = Annotated[int, msgspec.Meta(ge=0, le=INT64_MAX)]  # a version, an offset, a cursor
Ms = Annotated[int, msgspec.Meta(ge=0, le=LAST_MS)]  # a time, ms since the epoch


def line(max_length: int, min_length: int = 1) -> msgspec.Meta:
    """A one-line text field of at most ``max_length`` characters:
    ``Annotated[str, line(40)]``."""
    return msgspec.Meta(min_length=min_length, max_length=max_length, pattern=LINE_PATTERN)


def text(max_length: int, min_length: int = 1) -> msgspec.Meta:
    """Free text (line breaks allowed) of at most ``max_length`` characters."""
    return msgspec.Meta(min_length=min_length, max_length=max_length, pattern=TEXT_PATTERN)


__all__ = ["INT64_MAX", "INT64_MIN", "LAST_MS", "LINE_PATTERN", "TEXT_PATTERN", "Count",
           "Int64", "Ms", "line", "text", "whole"]
