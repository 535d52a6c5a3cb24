"""Path and query parameters of the lobby's routes that name something by id.

An id in a path or query ends up in a NATS subject or an SQL query, so it is
checked here, at the edge, against the one id shape of ``schemas.subjects``:
a bad one is a typed 400 before any handler runs.
"""

from __future__ import annotations

from typing import Annotated, Any

from litestar.params import Parameter

from schemas.bounds import INT64_MAX, LAST_MS, LINE_PATTERN, whole
from schemas.subjects import ID_PATTERN

ID_HELP = "1 to 64 letters, digits, '-' or '_'"


def _id(what: str) -> Any:
    return Parameter(pattern=ID_PATTERN, max_length=64, description=f"a {what} id: {ID_HELP}")


GameId = Annotated[str, _id("game")]
TableId = Annotated[str, _id("table")]
PlayerId = Annotated[str, _id("player")]
TournamentId = Annotated[str, _id("tournament")]
TeamId = Annotated[str, _id("team")]
MatchId = Annotated[str, _id("match")]

RoomCode = Annotated[str | None, Parameter(
    pattern=whole(r"[A-Za-z0-9]{4,12}"), description="a private table's room code")]

# A player id or a seated name (the characters a name may hold).
PLAYER_PATTERN = whole(r"[\w .:-]{1,64}")



def count(description: str, ge: int = 0) -> Any:
    """A version, a cursor or a position in the query: at most a signed 64-bit integer,
    as the bodies' ``schemas.bounds.Count`` is."""
    return Parameter(ge=ge, le=INT64_MAX, description=description)


def line(description: str, max_length: int, min_length: int = 1) -> Any:
    """One line of text in the query, held to the bodies' ``schemas.bounds.line``."""
    return Parameter(min_length=min_length, max_length=max_length, pattern=LINE_PATTERN,
                     description=description)


# A replay's step: events folded, and whose view of them (both routes that step a game).
EventsFolded = Annotated[int | None, count(
    "events folded (0: before the first); the last if absent")]
SeatView = Annotated[int | None, Parameter(
    ge=0, le=3, description="that seat's view, exactly as it was sent")]
Before = Annotated[int | None, count("the `next` of the previous page", ge=1)]


__all__ = [
    "ID_HELP",
    "LAST_MS",
    "PLAYER_PATTERN",
    "Before",
    "EventsFolded",
    "GameId",
    "MatchId",
    "PlayerId",
    "RoomCode",
    "SeatView",
    "TableId",
    "TeamId",
    "TournamentId",
    "count",
    "line",
]
