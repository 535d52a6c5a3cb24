"""The WebSocket protocol of ``/v1/ws``: every frame, both ways, as a tagged Struct.

Frames are JSON text objects tagged by ``type``. A client opens one socket with
``/v1/ws?token=<token>`` and then speaks these frames; ``docs/protocol.md``
shows an example of each. Game commands carry a client-chosen ``command_id``:
sending the same id twice has the effect of once and gets the same answer.
Commands name the seat they act for; the gateway checks the player holds it.
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from schemas import bounds, errors
from schemas.api import Table
from schemas.events import GameEvent
from schemas.matches import MatchId, MatchOpened
from schemas.notes import Note
from schemas.subjects import ID_PATTERN
from schemas.tournaments.api import TournamentView
from schemas.tournaments.events import TournamentEvent
from schemas.views import SeatView

CommandId = Annotated[str, bounds.line(64)]
Id = Annotated[str, msgspec.Meta(pattern=ID_PATTERN)]
Seat = Annotated[int, msgspec.Meta(ge=0, le=3)]


class ClientFrame(msgspec.Struct, frozen=True, tag=True, tag_field="type", kw_only=True,
                  forbid_unknown_fields=True):
    """``v``: the frame's schema version (schemas/versions.py); a frame type whose shape
    changes declares its new version as the default of its own ``v``. A frame without
    one is version 1."""

    v: int = 1


class Subscribe(ClientFrame, frozen=True, tag="subscribe"):
    """Follow a game (or the game of a table) as its seated player, or as a spectator.

    ``since``: the last version the client holds, to resume after a reconnect:
    the answer is exactly the events after it, or a snapshot when that is shorter.
    ``code``: a private table's room code, which lets a person with no seat there
    watch its game (``spectate``).
    """

    game_id: Id | None = None
    table_id: Id | None = None
    spectate: bool = False
    code: Annotated[str, bounds.line(12, 0)] | None = None
    since: bounds.Count | None = None


class Unsubscribe(ClientFrame, frozen=True, tag="unsubscribe"):
    game_id: Id


class WatchTables(ClientFrame, frozen=True, tag="watch_tables"):
    """Receive ``table_list`` frames whenever the open tables change (``on=false`` stops)."""

    on: bool = True


class WatchTournament(ClientFrame, frozen=True, tag="watch_tournament"):
    """Follow a tournament: a ``tournament`` frame with its whole view, then one for each
    event it records (``on=false`` stops)."""

    tournament_id: Id
    on: bool = True


class SnapshotRequest(ClientFrame, frozen=True, tag="snapshot"):
    game_id: Id


class Ping(ClientFrame, frozen=True, tag="ping"):
    nonce: Annotated[str, bounds.line(64, 0)] = ""


class GameCommandFrame(ClientFrame, frozen=True):
    command_id: CommandId
    game_id: Id
    seat: Seat


class Bid(GameCommandFrame, frozen=True, tag="bid"):
    bid: Annotated[int, msgspec.Meta(ge=0, le=13)]


class BlindNil(GameCommandFrame, frozen=True, tag="blind_nil"):
    pass


class Look(GameCommandFrame, frozen=True, tag="look"):
    pass


class Play(GameCommandFrame, frozen=True, tag="play"):
    card: Annotated[str, msgspec.Meta(min_length=2, max_length=3)]


class Premove(GameCommandFrame, frozen=True, tag="premove"):
    card: Annotated[str, msgspec.Meta(min_length=2, max_length=3)]


class CancelPremove(GameCommandFrame, frozen=True, tag="cancel_premove"):
    pass


class Pass(GameCommandFrame, frozen=True, tag="pass"):
    """The blind-nil exchange: the cards this seat gives its partner."""

    cards: Annotated[list[Annotated[str, msgspec.Meta(min_length=2, max_length=3)]],
                     msgspec.Meta(max_length=4)]


class Leave(GameCommandFrame, frozen=True, tag="leave"):
    """Give up the seat now (the rules decide: a bot plays it, or the pair forfeits)."""


class Chat(ClientFrame, frozen=True, tag="chat"):
    game_id: Id
    text: Annotated[str, bounds.text(1000)]


class MuteBots(ClientFrame, frozen=True, tag="mute_bots"):
    """Stop (or resume) bot table talk for this player only."""

    game_id: Id
    muted: bool = True


class MatchReady(ClientFrame, frozen=True, tag="match_ready"):
    """Confirm a match one was offered (a ``match_offered`` note): answered by a
    ``match`` frame; when the last person confirms, ``match_started`` notes follow."""

    match_id: MatchId


class MatchDecline(ClientFrame, frozen=True, tag="match_decline"):
    """Say no to a match one was offered: it will not start (``match_cancelled``)."""

    match_id: MatchId


class QueueJoin(ClientFrame, frozen=True, tag="queue_join"):
    """Queue for a ranked game, alone (``partner`` null) or as a pair: both send
    ``queue_join`` naming each other within a minute. The ticket lives while this socket
    is open. Answers come as ``queue_status`` notes (or an error frame)."""

    partner: Id | None = None


class QueueLeave(ClientFrame, frozen=True, tag="queue_leave"):
    """Leave the queue (during a ready check: decline the match)."""


class QueueAccept(ClientFrame, frozen=True, tag="queue_accept"):
    """Accept the match a ``match_found`` note offered: the same as ``match_ready``, and
    answered the same way (a ``match`` frame)."""

    match_id: MatchId


ClientMessage = (
    Subscribe | Unsubscribe | WatchTables | WatchTournament | SnapshotRequest | Ping | Bid
    | BlindNil | Look | Play | Premove | CancelPremove | Pass | Leave | Chat | MuteBots
    | MatchReady | MatchDecline | QueueJoin | QueueLeave | QueueAccept
)

# --- The error codes each client frame may be answered with (schemas/errors) ---------------------

# Any frame: one that cannot be read, one too many, a socket whose token ran out, a
# gateway or a store that failed on it.
EVERY_FRAME = ("bad_json", "bad_frame", "unknown_type", "bad_field", "frame_too_large",
               "unsupported_version", "rate_limited", "token_expired", "internal",
               "unavailable")
_FOLLOWED = ("not_in_game",)
# A game command forwarded to the game's worker: the rules' codes and the worker's own.
_COMMAND = (*_FOLLOWED, "not_your_seat", "seat_is_bot", "game_unavailable", "rejected",
            "busy", "not_owner", "conflict", "command_id_reused", "not_allowed",
            *errors.RULE_CODES)
_STARTS = ("game_unavailable", "match_failed", "match_id_reused", "game_exists", "rejected",
           "busy", "not_owner", "conflict", "in_game")
_MATCH = ("match_not_found", "not_in_match", "match_closed", *_STARTS)
FRAME_ERRORS: dict[str, tuple[str, ...]] = {
    "subscribe": ("table_not_found", "game_not_found", "too_many_games",
                  "seated_cannot_spectate", "not_in_game", "room_code_required",
                  "deal_not_finished", "tournaments_unavailable", "game_unavailable"),
    "unsubscribe": _FOLLOWED,
    "watch_tables": (),
    "watch_tournament": ("too_many_tournaments", "no_tournament", "bad_tournament_id",
                         "tournaments_unavailable"),
    "snapshot": _FOLLOWED,
    "ping": (),
    **dict.fromkeys(("bid", "blind_nil", "look", "play", "premove", "cancel_premove", "pass",
                     "leave"), _COMMAND),
    "chat": (*_FOLLOWED, "chat_too_long", "chat_rate_limited"),
    "mute_bots": _FOLLOWED,
    "match_ready": _MATCH,
    "match_decline": _MATCH,
    "queue_join": ("registered_only", "more_games_needed", "queue_cooldown", "ranked_barred",
                   "in_game", "already_queued", "partner_unavailable", "ratings_unavailable"),
    "queue_leave": ("not_queued",),
    "queue_accept": ("not_queued", *_MATCH),
}


def frame_errors(frame_type: str) -> tuple[str, ...]:
    """Every code an ``error`` frame may carry in answer to a frame of this type."""
    return (*EVERY_FRAME, *FRAME_ERRORS.get(frame_type, ()))

# --- Server -> client ----------------------------------------------------------------------


class ServerFrame(msgspec.Struct, frozen=True, tag=True, tag_field="type", kw_only=True):
    """``v``: the frame's schema version, as a client frame's. A client reads a newer
    version of a frame it knows by ignoring the fields it does not know."""

    v: int = 1


class Welcome(ServerFrame, frozen=True, tag="welcome"):
    player_id: str
    name: str
    expires_at: int  # the token's expiry; the socket closes then


class Snapshot(ServerFrame, frozen=True, tag="snapshot"):
    """The seat's whole view at ``version`` (``view.seat`` is None for a spectator)."""

    game_id: str
    table_id: str
    version: int
    view: SeatView


class Subscribed(ServerFrame, frozen=True, tag="subscribed"):
    """Ends the answer to ``subscribe``: what followed (a snapshot, or the missed events
    from ``since``) brings the client to ``version``; live events follow."""

    game_id: str
    table_id: str
    seat: int | None  # None: watching as a spectator
    version: int
    resumed: bool  # True: missed events were sent instead of a snapshot
    # True: a spectator of a ranked or tournament match, some tricks behind the play (so a
    # client can say why the table shows less than the players see).
    delayed: bool = False


class Turn(msgspec.Struct, frozen=True, kw_only=True):
    """After an event: who must act, their clocks, and this seat's legal moves."""

    waiting: tuple[int, ...]
    deadlines: tuple[int, ...]
    bank: tuple[int, ...]
    legal_cards: tuple[str, ...] = ()
    legal_bids: tuple[int, ...] = ()
    blind_nil_offered: bool = False
    pass_count: int = 0


class EventFrame(ServerFrame, frozen=True, tag="event"):
    """One event as this seat may receive it. Versions increase by one, except past
    events the seat may not see at all (another seat's pre-move)."""

    game_id: str
    version: int
    event: GameEvent
    turn: Turn
    phase: str = ""  # the phase once the event applied: dealing, bidding, passing, play, over


class Ack(ServerFrame, frozen=True, tag="ack"):
    command_id: str
    version: int  # the game's version once the command is applied
    duplicate: bool = False  # the same command id came before: this is its first answer


class Error(ServerFrame, frozen=True, tag="error"):
    """A typed error: an engine rule code, or one of the gateway's codes (docs/protocol.md)."""

    code: str
    message: str
    command_id: str = ""
    until: int = 0  # queue_cooldown: when the player may queue again (ms); else 0


class Pong(ServerFrame, frozen=True, tag="pong"):
    nonce: str = ""
    at: int = 0  # server time, ms


class Moving(ServerFrame, frozen=True, tag="moving"):
    """This lobby copy is stopping (a restart, an upgrade): the socket closes next, with
    code 1012. Connect again (the address finds another copy) and resume as after any
    drop; nothing is lost, a command in flight was answered first."""

    message: str = ""


class TableListFrame(ServerFrame, frozen=True, tag="table_list"):
    tables: list[Table]


class TableFrame(ServerFrame, frozen=True, tag="table"):
    """A table one follows changed (seats, rules, the game started)."""

    table: Table


class ChatFrame(ServerFrame, frozen=True, tag="chat"):
    game_id: str
    seat: int | None
    player_id: str
    name: str
    text: str
    bot: bool = False
    at: int = 0


class NoteFrame(ServerFrame, frozen=True, tag="note"):
    """A note to this player (``schemas.notes``), on every socket the player has open."""

    note: Note


class TournamentFrame(ServerFrame, frozen=True, tag="tournament"):
    """A followed tournament: its whole ``view`` (the answer to ``watch_tournament``), or
    one ``event`` it recorded at ``version`` (skip versions the view already holds). A
    round's deal seed is never in it before the round is over. Neither ``view`` nor
    ``event``: a version not shown (a match's result in a duplicate tournament; its
    round's results are in the view once the round is over)."""

    tournament_id: str
    version: int
    view: TournamentView | None = None
    event: TournamentEvent | None = None


class MatchFrame(ServerFrame, frozen=True, tag="match"):
    """Where a match one was offered stands, in answer to ``match_ready`` or
    ``match_decline``."""

    match: MatchOpened


ServerMessage = (
    Welcome | Snapshot | Subscribed | EventFrame | Ack | Error | Pong | Moving | TableListFrame
    | TableFrame | ChatFrame | NoteFrame | MatchFrame | TournamentFrame
)
