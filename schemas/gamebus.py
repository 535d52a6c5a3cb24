"""The contract between gateways and game workers on the bus.

A gateway asks a worker to apply one game command with ``GameRequest`` (NATS
request/reply); the worker answers with ``GameReply``. The events themselves
travel on JetStream (``game.evt.<game_id>.<type>``), never in the reply: every
gateway learns about every change the same way, whoever asked for it.
"""

from __future__ import annotations

import msgspec

from schemas.bus import EventEnvelope
from schemas.commands import GameCommand
from schemas.rules import Rules


class GameRequest(msgspec.Struct, frozen=True, kw_only=True):
    game_id: str
    command_id: str  # chosen by the client; the same id twice has the effect of once
    command: GameCommand
    player_id: str = ""  # who asked; empty for the platform itself (timers, lobby)


class GameReply(msgspec.Struct, frozen=True, kw_only=True):
    ok: bool
    version: int = 0  # the game's stream version after the command
    first_version: int = 0  # version of the command's first event (0 when it made none)
    duplicate: bool = False  # the command id was seen before: this is the first answer again
    code: str = ""  # error code when not ok: an engine rule code or a platform code
    message: str = ""


class CreateGame(msgspec.Struct, frozen=True, kw_only=True):
    """A table starts a game: the worker writes ``GameStarted`` and deals."""

    game_id: str
    command_id: str
    rules: Rules
    players: tuple[str, str, str, str]  # player ids, or "bot:<level>" for a bot seat
    bot_levels: tuple[str, str, str, str] = ("", "", "", "")  # "" for a person
    rated: bool = False
    table_id: str = ""
    banter: bool = True  # the table's switch: False means bots say nothing at this table
    # Hex: deal from this seed instead of a fresh one (every table of a duplicate round
    # shares it). Such a game's seed is sealed: no view shows it, even at the end.
    deal_seed: str = ""


class ChatLine(msgspec.Struct, frozen=True, kw_only=True):
    """Table talk, from a person or a bot, fanned out to the table's sockets."""

    game_id: str
    seat: int | None  # None for a spectator
    player_id: str
    text: str
    bot: bool = False
    at: int = 0
    name: str = ""  # the speaker's display name (a bot's name for a bot)


class EventsSince(msgspec.Struct, frozen=True, kw_only=True):
    """A gateway missing events of a game (a gap on JetStream, or JetStream lost them)
    asks the worker for the stored events after ``version``, straight from the store."""

    game_id: str
    version: int = 0  # answer the events with a greater version
    limit: int = 1000


class EventsReply(msgspec.Struct, frozen=True, kw_only=True):
    events: list[EventEnvelope]  # in version order, as the outbox publishes them
    version: int = 0  # the stream's version now (0: no such game)


class TableChanged(msgspec.Struct, frozen=True, kw_only=True):
    """A lobby changed a table (seats, rules, start): every gateway refreshes its
    table-list watchers and the table's own subscribers."""

    table_id: str
    game_id: str = ""


class SeatPresent(msgspec.Struct, frozen=True, kw_only=True):
    """A seated player subscribed on some gateway: every other gateway cancels the seat's
    disconnect grace timer, so a player who comes back elsewhere is not made to leave.
    The sender (``gateway``) cancelled its own timer already; its own copy, arriving late,
    must not cancel a grace period that began after it."""

    game_id: str
    seat: int
    player_id: str
    gateway: str = ""
