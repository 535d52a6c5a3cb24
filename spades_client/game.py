"""One game over ``/v1/ws``: the seat's view, one command in flight, resumes."""

from __future__ import annotations

import asyncio
import itertools
import typing
from collections.abc import Sequence

import msgspec
from tenacity import (
    AsyncRetrying,
    RetryError,
    retry_if_exception_type,
    stop_after_attempt,
    wait_exponential,
)
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from schemas import ws
from schemas.events import GameEnded
from schemas.views import SeatView
from spades_client.errors import RETRY_CODES, CommandRejected
from spades_client.moves import Move

_decoder = msgspec.json.Decoder(ws.ServerMessage)
_KNOWN = frozenset(t.__struct_config__.tag for t in typing.get_args(ws.ServerMessage))


class _Tagged(msgspec.Struct):
    type: str = ""


def _type_of(raw: str | bytes) -> str:
    try:
        return msgspec.json.decode(raw, type=_Tagged).type
    except msgspec.DecodeError:
        return ""
_encoder = msgspec.json.Encoder()


class GameConnection:
    """One game followed over ``/v1/ws``: the seat's view kept current from the snapshot
    and the events (in version order), one command in flight at a time, retried with its
    own ``command_id`` on the codes that ask for it, and a dropped socket resumed with
    ``since`` (the server answers with the missed events, or a fresh snapshot).

    ``view`` is the seat's view of the last snapshot; ``turn`` and ``version`` follow
    every event after it, and ``events`` holds those events."""

    _ids = itertools.count(1)

    def __init__(self, ws_url: str | Sequence[str], token: str, game_id: str, *,
                 spectate: bool = False, code: str | None = None, retry_delay: float = 0.05,
                 max_retries: int = 50, reconnects: int = 5) -> None:
        # One address (a load balancer's), or several lobby copies' as a balancer would
        # use them: a resume goes to the next one, since the last one dropped the socket
        # (a copy restarting says ``moving`` and closes with 1012).
        self.urls = [ws_url] if isinstance(ws_url, str) else list(ws_url)
        self._at = 0
        self.token, self.game_id, self.spectate = token, game_id, spectate
        self.code = code  # a private table's room code, to watch its game
        self.retry_delay, self.max_retries, self.reconnects = retry_delay, max_retries, reconnects
        self.conn: ClientConnection | None = None
        self.view: SeatView | None = None
        self.turn: ws.Turn | None = None
        self.version = 0
        self.seat: int | None = None
        self.ended: GameEnded | None = None
        self.events: list[ws.EventFrame] = []
        self.pending: str | None = None  # the command in flight
        self.acked_version = 0  # the version our last command reached
        self.retries = 0
        self.resumes = 0
        self.received = 0  # WebSocket frames received
        self._pending_frame = b""
        self._tries = 0
        self._prefix = f"k{next(self._ids)}-"
        self._counter = itertools.count(1)

    # --- the socket -------------------------------------------------------------------

    @property
    def ws_url(self) -> str:
        return self.urls[self._at % len(self.urls)]

    async def open(self) -> ws.Subscribed:
        """Connect and subscribe; after the first time, resume from ``version``."""
        self.conn = await connect(f"{self.ws_url}?token={self.token}", max_size=2**22,
                                  compression=None, open_timeout=30)
        welcome = _decoder.decode(await self.conn.recv())
        if not isinstance(welcome, ws.Welcome):
            raise RuntimeError(f"expected a welcome frame, got {welcome!r}")
        frame = ws.Subscribe(game_id=self.game_id, spectate=self.spectate, code=self.code,
                             since=self.version if self.view is not None else None)
        await self.conn.send(_encoder.encode(frame).decode())
        while True:
            got = await self._recv()
            if isinstance(got, ws.Subscribed):
                self.seat = got.seat
                return got
            if isinstance(got, ws.Error) and not got.command_id:
                raise CommandRejected(got)
            self._apply(got)

    async def _recv(self) -> ws.ServerFrame:
        """The next frame this client reads: a frame type a newer server sends that this
        client does not know is passed over (docs/protocol.md, "Versions of frames");
        a newer version of a known type reads without the fields it does not know."""
        assert self.conn is not None
        while True:
            raw = await self.conn.recv()
            try:
                frame = _decoder.decode(raw)
            except msgspec.ValidationError:
                if _type_of(raw) in _KNOWN:
                    raise
                continue
            self.received += 1
            return frame

    async def close(self) -> None:
        if self.conn is not None:
            await self.conn.close()

    # --- commands ---------------------------------------------------------------------

    async def send(self, move: Move) -> str:
        """Send ``move`` for our seat; its answer arrives through ``next``."""
        if self.pending is not None:
            raise RuntimeError(f"command {self.pending} is still in flight")
        if self.seat is None:
            raise RuntimeError("a spectator holds no seat")
        self.pending = f"{self._prefix}{next(self._counter)}"
        self._pending_frame = _encoder.encode({"type": move.type, **dict(move.fields),
                                               "command_id": self.pending,
                                               "game_id": self.game_id, "seat": self.seat})
        self._tries = 0
        await self._resend()
        return self.pending

    async def _resend(self) -> None:
        assert self.conn is not None
        try:
            await self.conn.send(self._pending_frame.decode())
        except ConnectionClosed:
            await self._resume()  # which sends the pending command again

    async def command(self, move: Move, timeout: float = 30.0) -> ws.Ack:
        """Send ``move`` and wait for its ``ack``, taking in the frames on the way."""
        command_id = await self.send(move)
        async with asyncio.timeout(timeout):
            while True:
                frame = await self.next()
                if isinstance(frame, ws.Ack) and frame.command_id == command_id:
                    return frame
                if isinstance(frame, ws.Error) and frame.command_id == command_id:
                    raise CommandRejected(frame)

    async def next(self) -> ws.ServerFrame:
        """The next frame, already applied; a dropped socket is resumed on the way."""
        while True:
            try:
                frame = await self._recv()
            except ConnectionClosed:
                await self._resume()
                continue
            if isinstance(frame, ws.Error) and frame.command_id == self.pending \
                    and frame.code in RETRY_CODES and self._tries < self.max_retries:
                self._tries += 1
                self.retries += 1
                await asyncio.sleep(self.retry_delay)
                await self._resend()
                continue
            self._apply(frame)
            return frame

    async def _resume(self) -> None:
        """Open the socket again: ``reconnects`` tries, 0.1 s before the first and twice
        as long before each next one, at most 2 s; ``ConnectionError`` after the last."""
        if self.reconnects <= 0:
            raise ConnectionError(f"could not resume game {self.game_id}")
        await asyncio.sleep(0.1)
        try:
            async for attempt in AsyncRetrying(
                    retry=retry_if_exception_type((OSError, ConnectionClosed, TimeoutError,
                                                   InvalidHandshake)),
                    stop=stop_after_attempt(self.reconnects),
                    wait=wait_exponential(multiplier=0.2, max=2.0)):
                with attempt:
                    self._at += 1
                    await self.open()
        except RetryError:
            raise ConnectionError(f"could not resume game {self.game_id}") from None
        self.resumes += 1
        if self.pending is not None:  # its answer may have been lost: ask again
            await self._resend()

    # --- the view ---------------------------------------------------------------------

    def _apply(self, frame: ws.ServerFrame) -> None:
        if isinstance(frame, ws.Snapshot) and frame.game_id == self.game_id:
            self.view, self.version = frame.view, frame.version
            v = frame.view
            self.turn = ws.Turn(waiting=v.waiting, deadlines=v.deadlines, bank=v.bank,
                                legal_cards=v.legal_cards, legal_bids=v.legal_bids,
                                blind_nil_offered=v.blind_nil_offered, pass_count=v.pass_count)
            if v.phase == "over" and self.ended is None:
                self.ended = GameEnded(winner=v.winner, reason=v.end_reason, scores=v.scores,
                                       bags=v.bags, hands_played=len(v.sheet))
        elif isinstance(frame, ws.EventFrame) and frame.game_id == self.game_id:
            if frame.version <= self.version:
                return  # already held (a resume may repeat the edge)
            self.version, self.turn = frame.version, frame.turn
            self.events.append(frame)
            if isinstance(frame.event, GameEnded):
                self.ended = frame.event
        elif isinstance(frame, ws.Ack) and frame.command_id == self.pending:
            self.pending = None
            self.acked_version = frame.version
        elif isinstance(frame, ws.Error) and frame.command_id == self.pending:
            self.pending = None

    def my_turn(self) -> bool:
        """Our seat must act now, and the events our last command made have arrived."""
        t = self.turn
        return (self.ended is None and self.pending is None and t is not None
                and self.seat in t.waiting and self.version >= self.acked_version)
