"""Starting a match: the lobby's ``svc.lobby.open_match`` endpoint (msgpack).

A person's table, the ranked queue and a tournament's scheduler all start games
the same way: four reserved seats (people by player id, or bots by level), the
rules, whether the result is rated, and where the match comes from. The caller
chooses the ``match_id``; asking again with the same id (after a timeout, a
crash, from another copy) returns the same table and game, never a second one,
and says where the match stands: that answer is the record a caller re-reads.

With ``ready_seconds`` the match first asks its people: each gets a
``match_offered`` note and confirms (``match_ready``) before ``ready_by``; the
game starts when the last one does, and a decline or the deadline ends it as
``not_ready`` with the seats that did not confirm named. However a match ends
its start (started, not ready, failed), a ``MatchOutcome`` goes out on the
``LOBBY_MATCHES`` stream, so a caller in another service learns it without
asking. Errors come back as NATS service errors with a stable code
(``docs/protocol.md``).
"""

from __future__ import annotations

import uuid
from typing import Annotated, Any, Literal

import msgspec

from schemas.bounds import whole
from schemas.subjects import ID_PATTERN

# A match's table and game ids are derived from its id, so every ask, every lobby copy
# and a caller in another service (a tournament finding its match by the game's end)
# name them alike without being told.
_IDS = uuid.UUID("6f1d3c52-9a4e-4b8e-9a0f-5c1e2d7b8a90")


def table_of(match_id: str) -> str:
    """The id of the table a match's game is played at."""
    return str(uuid.uuid5(_IDS, f"table:{match_id}"))


def game_of(match_id: str) -> str:
    """The id of a match's game."""
    return uuid.uuid5(_IDS, f"game:{match_id}").hex


def lobby_match_id(tournament_id: str, match_id: str) -> str:
    """The lobby's id of a tournament's match: the same on every ask and every copy,
    so the lobby's record of a game names the tournament and its match."""
    return f"t{uuid.UUID(tournament_id).hex}-{match_id}"


def parse_lobby_match_id(lobby_id: str) -> tuple[str, str] | None:
    """(tournament id, match id) of a lobby match id made by ``lobby_match_id``."""
    head, _, match_id = lobby_id.partition("-")
    if not head.startswith("t") or not match_id:
        return None
    try:
        return str(uuid.UUID(head[1:])), match_id
    except ValueError:
        return None


MatchId = Annotated[str, msgspec.Meta(pattern=ID_PATTERN)]
Origin = Literal["table", "queue", "tournament"]

# ``starting``: everyone is ready (or no check was asked) and the game is being created;
# ``started`` only once the game exists, so its ``game_id`` can be subscribed to.
MatchState = Literal["ready_check", "starting", "started", "not_ready", "failed"]

# Endpoint name under ``svc.lobby``.
OPEN_MATCH = "open_match"
# The longest ready check: a tournament's no-show window (an hour) at most.
MAX_READY_SECONDS = 3600


class MatchSeat(msgspec.Struct, frozen=True, kw_only=True):
    """A person (``player_id`` of a lobby account) or a bot (``bot``: its level)."""

    player_id: str = ""
    bot: str = ""


class OpenMatch(msgspec.Struct, frozen=True, kw_only=True):
    match_id: MatchId
    seats: tuple[MatchSeat, MatchSeat, MatchSeat, MatchSeat]
    rules: str | dict[str, Any] = "house"  # a preset, or {"preset": ..., overrides}
    rated: bool = False  # needs four registered people
    origin: Origin
    origin_id: Annotated[str, msgspec.Meta(max_length=64)] = ""
    banter: bool = True
    # 0: start at once. Otherwise every person seated confirms within this many seconds
    # (at least 5), or the match does not start.
    ready_seconds: Annotated[int, msgspec.Meta(ge=0, le=MAX_READY_SECONDS)] = 0
    # Hex, 16 to 64 bytes: the game deals from this seed (``CreateGame.deal_seed``), sealed from
    # its players and spectators; the caller reveals it. Empty: the game draws its own.
    deal_seed: Annotated[str, msgspec.Meta(pattern=whole(r"((?:[0-9a-f]{2}){16,64})?"))] = ""


class MatchOpened(msgspec.Struct, frozen=True, kw_only=True):
    match_id: str
    table_id: str
    game_id: str
    rated: bool
    duplicate: bool = False  # the match was opened by an earlier ask
    state: MatchState = "started"
    ready_by: int = 0  # ms since the epoch; 0 without a ready check
    ready: tuple[int, ...] = ()  # seats that confirmed (bots always have)
    absent: tuple[int, ...] = ()  # not_ready: the people's seats that did not confirm
    declined: tuple[int, ...] = ()  # not_ready: the seats whose player said no


class MatchOutcome(msgspec.Struct, frozen=True, kw_only=True):
    """How a match's start ended, on ``lobby.match.<origin>.<match_id>`` (JetStream
    ``LOBBY_MATCHES``, message id ``<match_id>:<state>``). Sent at least once: a
    consumer keys what it does by ``match_id``."""

    match_id: str
    origin: Origin
    origin_id: str
    state: Literal["started", "not_ready", "failed"]
    table_id: str
    game_id: str
    rated: bool
    absent: tuple[int, ...] = ()
    declined: tuple[int, ...] = ()
