"""Notes to one player, wherever their sockets are: ``player.note.<player_id>`` (msgpack).

Any service may publish one (the lobby when it seats a player in a match, the
ratings service when a game moved a rating, the tournament service when a
round calls a player); every gateway forwards it to all of that player's
sockets as a ``note`` frame (``docs/protocol.md``). A note is a courtesy, not
the record: a player with no socket open misses it, and finds the same facts
over HTTP (``GET /v1/me`` for current games and tables, the ratings and
tournament endpoints for the rest).
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

Origin = Literal["table", "queue", "tournament"]


class PlayerNote(msgspec.Struct, frozen=True, tag=True, tag_field="kind", kw_only=True):
    pass


class MatchOffered(PlayerNote, frozen=True, tag="match_offered"):
    """A match wants this player: confirm ``ready`` before ``expires_at`` (ms since the
    epoch), or the match is not started and the absent seats are named."""

    match_id: str
    origin: Origin
    origin_id: str
    seat: int
    rated: bool
    expires_at: int


class MatchStarted(PlayerNote, frozen=True, tag="match_started"):
    """The player sits at ``seat`` of a game that began: subscribe to ``game_id``."""

    match_id: str
    origin: Origin
    origin_id: str
    table_id: str
    game_id: str
    seat: int
    rated: bool


class MatchCancelled(PlayerNote, frozen=True, tag="match_cancelled"):
    """A match this player was offered will not start: someone declined or the ready
    check ran out. ``absent``: the seats that did not confirm; ``declined``: those that
    said no."""

    match_id: str
    origin: Origin
    origin_id: str
    absent: tuple[int, ...]
    declined: tuple[int, ...] = ()


class PlayAgainAsked(PlayerNote, frozen=True, tag="play_again_asked"):
    """A game at the player's table ended and ``asked_by`` (a name) asks to play again,
    same table, same seats: agree with ``POST /v1/tables/{table_id}/again``, or leave."""

    table_id: str
    game_id: str  # the game that ended
    asked_by: str
    seat: int  # the player's seat at the table


class RatingChanged(PlayerNote, frozen=True, tag="rating_changed"):
    """A finished rated game moved this player's rating."""

    game_id: str
    rating_before: int
    rating_after: int


class TournamentCall(PlayerNote, frozen=True, tag="tournament_call"):
    """A tournament round seats this player. ``state`` ``ready_check``: confirm the
    ``match_offered`` note by ``ready_by`` (ms); no table or game exists yet, so
    ``table_id`` and ``game_id`` are empty. ``started``: subscribe to ``game_id``."""

    tournament_id: str
    round: Annotated[int, msgspec.Meta(ge=1)]
    table_id: str
    game_id: str
    seat: int
    state: Literal["ready_check", "started"] = "started"
    ready_by: int = 0


class TournamentInvite(PlayerNote, frozen=True, tag="tournament_invite"):
    """A player registered a team with this player as partner: accept it with
    ``POST /v1/tournaments/{tournament_id}/teams/{team_id}/confirm``."""

    tournament_id: str
    tournament: str  # the tournament's name
    team_id: str
    team: str  # the team's name
    player_id: str  # who asked
    name: str


class QueueStatus(PlayerNote, frozen=True, tag="queue_status"):
    """Where this player stands in the ranked queue. ``state``: ``inviting`` (a partner
    was asked and has until ``invite_until``), ``waiting``, ``matched`` (a ready check
    runs), or ``none`` (out of the queue: ``reason`` says why: ``left``,
    ``socket_closed`` (this player's or the partner's), ``gateway_lost``,
    ``invite_expired``, ``started``, ``declined``, ``partner_declined``,
    ``ranked_barred``: a fair-play bar began while this player was queued, and
    ``partner_unavailable``: it began for the partner of their pair).
    ``since`` is when the wait began (ms); ``window`` the rating distance accepted now
    (None: anyone)."""

    state: Literal["inviting", "waiting", "matched", "none"]
    partner: str | None = None
    since: int = 0
    window: int | None = None
    invite_until: int = 0
    reason: str = ""
    cooldown_until: int = 0  # ms: a missed match keeps this player out until then


class QueueInvite(PlayerNote, frozen=True, tag="queue_invite"):
    """``player_id`` wants to queue with this player: answer with ``queue_join`` naming
    them before ``expires_at`` (ms)."""

    player_id: str
    name: str
    expires_at: int


class QueuedPlayer(msgspec.Struct, frozen=True, kw_only=True):
    player_id: str
    name: str
    rating: int


class MatchFound(PlayerNote, frozen=True, tag="match_found"):
    """The queue found a four: accept with ``queue_accept`` before ``accept_by`` (ms).
    ``teams[0]`` sits at seats 0 and 2, ``teams[1]`` at 1 and 3."""

    match_id: str
    accept_by: int
    seat: int
    teams: tuple[tuple[QueuedPlayer, QueuedPlayer], tuple[QueuedPlayer, QueuedPlayer]]


Note = (MatchOffered | MatchStarted | MatchCancelled | PlayAgainAsked | RatingChanged
        | TournamentCall | TournamentInvite | QueueStatus | QueueInvite | MatchFound)
