"""Sockets as the gateway sees them, and the limits on them.

A ``Conn`` is one client socket: who it is, its rate limits, and a bounded queue of
frames for the transport to write (a client that stops reading is dropped, never
waited for). What a socket follows is each feature's own to keep, in a ``PerSocket``
of its own (the games it follows, the tables, the table list, the tournaments), so
``Conn`` knows no feature. ``Connections`` counts sockets per player on this gateway,
finds all of a player's sockets, and forgets a closed socket in every ``PerSocket``.
Nothing here knows the transport.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any, Generic, TypeVar

import msgspec

from schemas import ws
from services.lobby.accounts.auth import Claims
from services.lobby.base.errors import LobbyError
from services.lobby.base.settings import LobbySettings
from services.lobby.edge.outbox import Flush, Outbox

T = TypeVar("T")
_json = msgspec.json.Encoder()


def encode(frame: ws.ServerFrame) -> str:
    """A frame as the text the socket sends: encoded once, then shared by every
    socket that gets it (the transport writes text frames as they are)."""
    return _json.encode(frame).decode()


class Bucket:
    """A token bucket: ``rate`` per second, up to ``burst`` at once."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, float(burst)
        self.tokens, self.at = float(burst), time.monotonic()

    def take(self) -> bool:
        t = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (t - self.at) * self.rate)
        self.at = t
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


class Conn:
    """One client socket: who, what to send, how fast it may send."""

    def __init__(self, claims: Claims, settings: LobbySettings,
                 flush: Flush | None = None) -> None:
        self.claims = claims
        self.id = uuid.uuid4().hex  # names this socket in the queue's tickets
        self.outbox = Outbox(settings.ws_outbox_frames, flush)
        self.frames = Bucket(settings.ws_frames_per_second, settings.ws_frame_burst)
        self.chat = Bucket(settings.chat_per_second, settings.chat_burst)
        self.last_limited = 0.0
        self.closed = False
        self.expired = False
        self.moving = False  # the gateway is draining: closed with 1012 once answered
        self.busy = False  # a frame is being handled (its answer not yet queued)

    @property
    def player_id(self) -> str:
        return self.claims.player_id

    def send(self, frame: ws.ServerFrame) -> None:
        self.send_raw(encode(frame))

    def send_raw(self, data: str) -> None:
        if self.closed:
            return
        try:
            self.outbox.put_nowait(data)
        except asyncio.QueueFull:  # a client that does not read is dropped, not waited for
            self.close()

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            while self.outbox.full():  # make room for the end marker
                self.outbox.get_nowait()
            self.outbox.put_nowait(None)

    def rate_limited(self, data: bytes) -> bool:
        """True when this frame is over the limit. A dropped command is named by its id,
        every time, so its sender knows to send it again; other dropped frames are
        reported at most once a second."""
        if self.frames.take():
            return False
        command_id = _command_id_of(data)
        if command_id:
            self.send(ws.Error(code="rate_limited", command_id=command_id,
                               message="too many frames: this command was dropped; "
                                       "send it again shortly"))
            return True
        t = time.monotonic()
        if t - self.last_limited >= 1.0:
            self.last_limited = t
            self.send(ws.Error(code="rate_limited",
                               message="too many frames; slow down (frames were dropped)"))
        return True


class _CommandIdOnly(msgspec.Struct):
    command_id: str = ""


_id_decoder = msgspec.json.Decoder(_CommandIdOnly)


def _command_id_of(data: bytes) -> str:
    """The ``command_id`` a frame carries, if it is a JSON object with one; for telling
    a client which command a full rate limit dropped."""
    try:
        found = _id_decoder.decode(data).command_id
    except (msgspec.DecodeError, msgspec.ValidationError):
        return ""
    return found if 0 < len(found) <= 64 else ""


class PerSocket(Generic[T]):
    """One feature's state of each socket that has some, kept by the feature: made by
    ``empty`` on first use (``of``), forgotten when the socket closes or when the
    feature drops it. Sockets are found from the state, not the other way round."""

    def __init__(self, conns: Connections, empty: Callable[[], T]) -> None:
        self.empty = empty
        self.by_conn: dict[Conn, T] = {}
        conns.kept.append(self)

    def of(self, conn: Conn) -> T:
        """``conn``'s state, made now if it has none (nothing is kept for a closed one)."""
        state = self.by_conn.get(conn)
        if state is None:
            state = self.empty()
            if not conn.closed:
                self.by_conn[conn] = state
        return state

    def get(self, conn: Conn) -> T | None:
        return self.by_conn.get(conn)

    def drop(self, conn: Conn) -> T | None:
        return self.by_conn.pop(conn, None)

    def items(self) -> Iterator[tuple[Conn, T]]:
        return iter(list(self.by_conn.items()))


class Connections:
    """The open sockets of this gateway, by player."""

    def __init__(self, settings: LobbySettings) -> None:
        self.settings = settings
        self.all: set[Conn] = set()
        self.by_player: dict[str, set[Conn]] = {}
        self.flush = Flush()  # every socket's frames of one delivery, written together
        self.kept: list[PerSocket[Any]] = []  # every feature's state of each socket

    def open(self, claims: Claims) -> Conn:
        """A new socket for ``claims``, welcomed; ``too_many_sockets`` past the cap."""
        mine = self.by_player.get(claims.player_id, set())
        cap = self.settings.ws_sockets_per_player
        if len(mine) >= cap:
            raise LobbyError("too_many_sockets", f"at most {cap} sockets per player")
        conn = Conn(claims, self.settings, self.flush)
        self.all.add(conn)
        self.by_player.setdefault(claims.player_id, set()).add(conn)
        conn.send(ws.Welcome(player_id=claims.player_id, name=claims.name,
                             expires_at=claims.expires_at))
        return conn

    def remove(self, conn: Conn) -> bool:
        """Close and forget ``conn``; False when it was gone already."""
        conn.close()
        if conn not in self.all:
            return False
        self.all.discard(conn)
        for kept in self.kept:
            kept.drop(conn)
        mine = self.by_player.get(conn.player_id)
        if mine is not None:
            mine.discard(conn)
            if not mine:
                del self.by_player[conn.player_id]
        return True

    def of(self, player_id: str) -> list[Conn]:
        return list(self.by_player.get(player_id, ()))

    def close_all(self) -> None:
        for conn in list(self.all):
            conn.close()
