"""The WebSocket gateway's service side: games followed, seats checked, views fanned out.

For each game that has subscribers here, a ``Hub`` follows the game's events
on JetStream (an ordered consumer from the first event, so history and live
events arrive the same way and in order), folds them into the game's full
state, and sends each socket only what ``engine.views`` lets its seat see.
Several gateways follow the same game independently; commands go to the game
worker over NATS and come back to everyone as events. Nothing here knows the
transport: a ``Conn`` is handed frames to send and the transport writes them.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import msgspec

from engine.evolve import evolve, fold
from engine.state import OVER, GameState
from engine.views import redact, view
from schemas import commands as cmd
from schemas import ws
from schemas.api import GameSummary
from schemas.bus import EventEnvelope
from schemas.codes import GAME_UNAVAILABLE, TRANSIENT
from schemas.events import Event, GameEnded
from schemas.play import ChatLine, GameRequest, SeatPresent, TableChanged
from schemas.subjects import Names
from services.lobby import store
from services.lobby.auth import Claims
from services.lobby.errors import LobbyError
from services.lobby.gamebus import Following, GameBus, GameUnavailable
from services.lobby.tables import Tables, seat_of, summary, to_api
from services.platform import logs
from services.platform.events import game_registry

_log = logs.get("gateway")
_encoder = msgspec.json.Encoder()


def now_ms() -> int:
    return int(time.time() * 1000)


@dataclass(frozen=True)
class GatewayLimits:
    frames_per_second: float = 20.0
    frame_burst: int = 40
    sockets_per_player: int = 4
    chat_max_chars: int = 200
    chat_per_second: float = 1.0
    chat_burst: int = 3
    grace_seconds: float = 30.0
    resume_max_events: int = 64
    outbox_frames: int = 4096
    hub_linger_seconds: float = 10.0
    games_per_socket: int = 8


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
    """One client socket, as the gateway sees it: who, what it follows, what to send."""

    def __init__(self, claims: Claims, limits: GatewayLimits) -> None:
        self.claims = claims
        self.outbox: asyncio.Queue[bytes | None] = asyncio.Queue(limits.outbox_frames)
        self.subs: dict[str, Sub] = {}
        self.follows: set[str] = set()  # open tables whose changes this socket gets
        self.watching_tables = False
        self.frames = Bucket(limits.frames_per_second, limits.frame_burst)
        self.chat = Bucket(limits.chat_per_second, limits.chat_burst)
        self.last_limited = 0.0
        self.closed = False
        self.expired = False

    def send(self, frame: ws.ServerFrame) -> None:
        self.send_raw(_encoder.encode(frame))

    def send_raw(self, data: bytes) -> None:
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

    def rate_limited(self) -> bool:
        """True when this frame is over the limit; the client is told at most once a second."""
        if self.frames.take():
            return False
        t = time.monotonic()
        if t - self.last_limited >= 1.0:
            self.last_limited = t
            self.send(ws.Error(code="rate_limited",
                               message="too many frames; slow down (frames were dropped)"))
        return True


@dataclass(eq=False)
class Sub:
    conn: Conn
    hub: Hub
    seat: int | None


def _turn(state: GameState, seat: int | None) -> ws.Turn:
    v = view(state, seat)
    return ws.Turn(waiting=v.waiting, deadlines=v.deadlines, bank=v.bank,
                   legal_cards=v.legal_cards, legal_bids=v.legal_bids,
                   blind_nil_offered=v.blind_nil_offered, pass_count=v.pass_count)


class Hub:
    """One game followed by this gateway: its folded state, history and subscribers."""

    def __init__(self, gw: Gateway, game_id: str, table: store.TableRow) -> None:
        self.gw, self.game_id, self.table = gw, game_id, table
        self.state = GameState()
        self.history: list[tuple[Event, GameState]] = []  # index i holds version i + 1
        self.subs: set[Sub] = set()
        self.ready = asyncio.Event()
        self.pending: dict[int, Event] = {}
        self._filling: asyncio.Task[None] | None = None
        self._subscriptions: list[Any] = []
        self._following: Following | None = None
        self._linger: asyncio.Task[None] | None = None

    async def start(self) -> None:
        gw = self.gw
        self._following = await gw.games.follow(self.game_id, self._on_envelope)
        self.ready = self._following.caught_up
        self._subscriptions.append(await gw.games.listen(
            gw.names.game_chat(self.game_id), ChatLine, self._on_chat))
        self._subscriptions.append(await gw.games.listen(
            gw.names.lobby_presence(self.game_id), SeatPresent, self._on_presence))

    async def stop(self) -> None:
        if self._following is not None:
            await self._following.stop()
        for s in self._subscriptions:
            with contextlib.suppress(Exception):
                await s.unsubscribe()
        if self._filling:
            self._filling.cancel()

    # --- events in ---------------------------------------------------------------------

    def _on_envelope(self, env: EventEnvelope) -> None:
        try:
            event = self.gw.registry.decode(env.type, env.schema_version, env.body)
        except Exception as exc:
            _log.error("undecodable_event", game_id=self.game_id, error=type(exc).__name__)
            return
        self.apply(env.version, event)  # type: ignore[arg-type]

    def apply(self, version: int, event: Event) -> None:
        if version <= self.state.version:
            return  # a duplicate delivery
        if version > self.state.version + 1:
            self.pending[version] = event
            if self._filling is None or self._filling.done():
                self._filling = asyncio.create_task(self._fill())
            return
        self._advance(event)
        while self.state.version + 1 in self.pending:
            self._advance(self.pending.pop(self.state.version + 1))
        for v in [v for v in self.pending if v <= self.state.version]:
            del self.pending[v]

    async def _fill(self) -> None:
        """A gap on JetStream: ask the game worker for the stored events we lack."""
        while self.pending:
            try:
                reply = await self.gw.games.events_since(self.game_id, self.state.version)
            except GameUnavailable:
                await asyncio.sleep(1.0)
                continue
            for env in reply.events:
                event = self.gw.registry.decode(env.type, env.schema_version, env.body)
                self.apply(env.version, event)  # type: ignore[arg-type]
            if self.pending:
                await asyncio.sleep(0.2)

    def _advance(self, event: Event) -> None:
        after = evolve(self.state, event)
        self.state = after
        self.history.append((event, after))
        frames: dict[int | None, bytes | None] = {}
        for sub in list(self.subs):
            if sub.seat not in frames:
                frames[sub.seat] = self._frame(event, after, sub.seat)
            data = frames[sub.seat]
            if data is not None:
                sub.conn.send_raw(data)
        if isinstance(event, GameEnded):
            asyncio.get_running_loop().create_task(self.gw.game_over(self))

    def _frame(self, event: Event, after: GameState, seat: int | None) -> bytes | None:
        shown = redact(event, after, seat)
        if shown is None:
            return None
        return _encoder.encode(ws.EventFrame(game_id=self.game_id, version=after.version,
                                             event=shown,  # type: ignore[arg-type]
                                             turn=_turn(after, seat)))

    # --- chat and presence ----------------------------------------------------------------

    async def _on_chat(self, line: ChatLine) -> None:
        if line.bot and not self.table.banter:
            return
        frame = _encoder.encode(ws.ChatFrame(game_id=line.game_id, seat=line.seat,
                                             player_id=line.player_id, name=line.name,
                                             text=line.text, bot=line.bot, at=line.at))
        for sub in list(self.subs):
            if line.bot and self.game_id in self.gw.muted.get(sub.conn.claims.player_id, ()):
                continue
            sub.conn.send_raw(frame)

    async def _on_presence(self, p: SeatPresent) -> None:
        if p.gateway != self.gw.instance:
            self.gw.cancel_grace(self.game_id, p.seat)

    # --- subscribers ----------------------------------------------------------------------

    def join(self, sub: Sub, since: int | None) -> None:
        """Bring ``sub`` up to date and add it, with no await in between, so no live
        event can slip between the catch-up and the subscription."""
        conn, state = sub.conn, self.state
        missed = state.version - since if since is not None else -1
        resumed = 0 <= missed <= self.gw.limits.resume_max_events
        if resumed:
            for event, after in self.history[since:]:
                data = self._frame(event, after, sub.seat)
                if data is not None:
                    conn.send_raw(data)
        else:
            conn.send(ws.Snapshot(game_id=self.game_id, table_id=self.table.table_id,
                                  version=state.version, view=view(state, sub.seat)))
        conn.send(ws.Subscribed(game_id=self.game_id, table_id=self.table.table_id,
                                seat=sub.seat, version=state.version, resumed=resumed))
        self.subs.add(sub)
        if self._linger is not None:
            self._linger.cancel()
            self._linger = None

    def leave(self, sub: Sub) -> None:
        self.subs.discard(sub)
        if not self.subs and self._linger is None:
            self._linger = asyncio.get_running_loop().create_task(self._close_later())

    async def _close_later(self) -> None:
        await asyncio.sleep(self.gw.limits.hub_linger_seconds)
        if not self.subs:
            await self.gw.drop_hub(self)


class Gateway:
    def __init__(self, tables: Tables, games: GameBus, names: Names,
                 limits: GatewayLimits) -> None:
        self.tables, self.games, self.names = tables, games, names
        self.limits = limits
        self.instance = uuid.uuid4().hex  # tells this gateway's presence notes from others'
        self.registry = game_registry()
        self.hubs: dict[str, Hub] = {}
        self._hub_locks: dict[str, asyncio.Lock] = {}
        self.conns: set[Conn] = set()
        self.per_player: dict[str, int] = {}
        self.muted: dict[str, set[str]] = {}
        self.grace: dict[tuple[str, int], asyncio.Task[None]] = {}
        self._table_note: asyncio.Task[None] | None = None
        self._changed_tables: set[str] = set()
        self._listening: Any = None

    async def start(self) -> None:
        self._listening = await self.games.listen(self.names.lobby_tables, TableChanged,
                                                  self._on_table_changed)

    async def stop(self) -> None:
        for conn in list(self.conns):
            conn.close()
        for task in self.grace.values():
            task.cancel()
        for hub in list(self.hubs.values()):
            await hub.stop()
        if self._listening is not None:
            with contextlib.suppress(Exception):
                await self._listening.unsubscribe()

    @property
    def running(self) -> bool:
        return True

    # --- sockets ---------------------------------------------------------------------------

    def connect(self, claims: Claims) -> Conn:
        count = self.per_player.get(claims.player_id, 0)
        if count >= self.limits.sockets_per_player:
            raise LobbyError(429, "too_many_sockets",
                             f"at most {self.limits.sockets_per_player} sockets per player")
        self.per_player[claims.player_id] = count + 1
        conn = Conn(claims, self.limits)
        self.conns.add(conn)
        conn.send(ws.Welcome(player_id=claims.player_id, name=claims.name,
                             expires_at=claims.expires_at))
        return conn

    def disconnect(self, conn: Conn) -> None:
        conn.close()
        if conn not in self.conns:
            return
        self.conns.discard(conn)
        pid = conn.claims.player_id
        self.per_player[pid] = self.per_player.get(pid, 1) - 1
        if self.per_player[pid] <= 0:
            del self.per_player[pid]
        for sub in list(conn.subs.values()):
            sub.hub.leave(sub)
            if sub.seat is not None and not self._seat_watched(sub.hub, sub.seat):
                self._start_grace(sub.hub, sub.seat, pid)
        conn.subs.clear()

    def _seat_watched(self, hub: Hub, seat: int) -> bool:
        return any(s.seat == seat for s in hub.subs)

    # --- frames ----------------------------------------------------------------------------

    async def handle(self, conn: Conn, frame: ws.ClientFrame) -> None:
        if isinstance(frame, ws.GameCommandFrame):
            await self._command(conn, frame)
        elif isinstance(frame, ws.Subscribe):
            await self._subscribe(conn, frame)
        elif isinstance(frame, ws.Ping):
            conn.send(ws.Pong(nonce=frame.nonce, at=now_ms()))
        elif isinstance(frame, ws.SnapshotRequest):
            sub = self._sub(conn, frame.game_id)
            state = sub.hub.state
            conn.send(ws.Snapshot(game_id=frame.game_id, table_id=sub.hub.table.table_id,
                                  version=state.version, view=view(state, sub.seat)))
        elif isinstance(frame, ws.Unsubscribe):
            sub = self._sub(conn, frame.game_id)
            del conn.subs[frame.game_id]
            sub.hub.leave(sub)
            if sub.seat is not None and not self._seat_watched(sub.hub, sub.seat):
                self._start_grace(sub.hub, sub.seat, conn.claims.player_id)
        elif isinstance(frame, ws.WatchTables):
            conn.watching_tables = frame.on
            if frame.on:
                conn.send(ws.TableListFrame(tables=await self.tables.list_open()))
        elif isinstance(frame, ws.Chat):
            await self._chat(conn, frame)
        elif isinstance(frame, ws.MuteBots):
            self._sub(conn, frame.game_id)
            muted = self.muted.setdefault(conn.claims.player_id, set())
            if frame.muted:
                muted.add(frame.game_id)
            else:
                muted.discard(frame.game_id)

    def _sub(self, conn: Conn, game_id: str) -> Sub:
        sub = conn.subs.get(game_id)
        if sub is None:
            raise LobbyError(403, "not_in_game",
                             f"this socket does not follow game {game_id}; subscribe first")
        return sub

    async def _subscribe(self, conn: Conn, frame: ws.Subscribe) -> None:
        me = conn.claims.player_id
        if frame.game_id:
            table = await store.table_by_game(self.tables.pool, frame.game_id)
            if table is None:
                raise LobbyError(404, "game_not_found", f"no game {frame.game_id}")
        elif frame.table_id:
            table = await store.get_table(self.tables.pool, frame.table_id)
            if table is None:
                raise LobbyError(404, "table_not_found", f"no table {frame.table_id}")
            conn.follows.add(table.table_id)
            if table.game_id is None:
                conn.send(ws.TableFrame(table=to_api(table, me)))
                return
        else:
            raise LobbyError(400, "bad_field", "subscribe names a game_id or a table_id")
        game_id = table.game_id
        assert game_id is not None
        seat = seat_of(table, me)
        if seat is not None and frame.spectate:
            raise LobbyError(409, "seated_cannot_spectate",
                             "you hold a seat in this game; follow it as that seat")
        if seat is None and not frame.spectate:
            raise LobbyError(403, "not_in_game",
                             "you hold no seat in this game; subscribe with spectate")
        if game_id not in conn.subs and len(conn.subs) >= self.limits.games_per_socket:
            raise LobbyError(429, "too_many_games",
                             f"one socket follows at most {self.limits.games_per_socket} games")
        hub = await self._hub(game_id, table)
        try:
            await asyncio.wait_for(hub.ready.wait(), 5.0)
        except TimeoutError:
            raise LobbyError(503, GAME_UNAVAILABLE, "the game's events did not arrive") from None
        if frame.since is not None and frame.since > hub.state.version:
            # Another gateway may be ahead of this one by a moment.
            for _ in range(50):
                if hub.state.version >= frame.since:
                    break
                await asyncio.sleep(0.02)
        old = conn.subs.pop(game_id, None)
        if old is not None:
            hub.leave(old)
        sub = Sub(conn, hub, seat)
        conn.subs[game_id] = sub
        hub.join(sub, frame.since if frame.since is not None and
                 frame.since <= hub.state.version else None)
        if seat is not None:
            self.cancel_grace(game_id, seat)
            await self.games.seat_present(SeatPresent(game_id=game_id, seat=seat, player_id=me,
                                                      gateway=self.instance))
            state = hub.state
            if state.phase != OVER and state.bots >> seat & 1:
                await self._send(conn, game_id, f"{me}:return:{state.version}",
                                 cmd.ReturnToSeat(seat=seat, at=now_ms()))

    async def _hub(self, game_id: str, table: store.TableRow) -> Hub:
        lock = self._hub_locks.setdefault(game_id, asyncio.Lock())
        async with lock:
            hub = self.hubs.get(game_id)
            if hub is None:
                hub = Hub(self, game_id, table)
                await hub.start()
                self.hubs[game_id] = hub
            return hub

    async def drop_hub(self, hub: Hub) -> None:
        if self.hubs.get(hub.game_id) is hub and not hub.subs:
            del self.hubs[hub.game_id]
            self._hub_locks.pop(hub.game_id, None)
            await hub.stop()

    # --- commands ---------------------------------------------------------------------------

    async def _command(self, conn: Conn, frame: ws.GameCommandFrame) -> None:
        sub = self._sub(conn, frame.game_id)
        if sub.seat is None or sub.seat != frame.seat:
            raise LobbyError(403, "not_your_seat", f"you do not hold seat {frame.seat}")
        at = now_ms()
        command = _to_command(frame, at)
        reply_version, duplicate = await self._send(
            conn, frame.game_id, f"{conn.claims.player_id}:{frame.command_id}", command)
        conn.send(ws.Ack(command_id=frame.command_id, version=reply_version,
                         duplicate=duplicate))

    async def _send(self, conn: Conn | None, game_id: str, command_id: str,
                    command: cmd.Command) -> tuple[int, bool]:
        player = conn.claims.player_id if conn else ""
        try:
            reply = await self.games.command(GameRequest(
                game_id=game_id, command_id=command_id, command=command,  # type: ignore[arg-type]
                player_id=player))
        except GameUnavailable:
            raise LobbyError(503, GAME_UNAVAILABLE, "no game worker answered; retry the "
                             "same command_id") from None
        if not reply.ok:
            raise LobbyError(409, reply.code or "rejected", reply.message)
        return reply.version, reply.duplicate

    # --- chat -------------------------------------------------------------------------------

    async def _chat(self, conn: Conn, frame: ws.Chat) -> None:
        sub = self._sub(conn, frame.game_id)
        text = "".join(c for c in frame.text if c.isprintable()).strip()
        if not text:
            raise LobbyError(400, "bad_field", "chat text is empty")
        if len(text) > self.limits.chat_max_chars:
            raise LobbyError(400, "chat_too_long",
                             f"chat lines are at most {self.limits.chat_max_chars} characters")
        if not conn.chat.take():
            raise LobbyError(429, "chat_rate_limited", "too many chat lines; wait a moment")
        await self.games.chat(ChatLine(game_id=frame.game_id, seat=sub.seat,
                                       player_id=conn.claims.player_id, text=text,
                                       name=conn.claims.name, at=now_ms()))

    # --- disconnect grace --------------------------------------------------------------------

    def _start_grace(self, hub: Hub, seat: int, player_id: str) -> None:
        key = (hub.game_id, seat)
        if key in self.grace or hub.state.phase == OVER:
            return

        async def expire() -> None:
            try:
                await asyncio.sleep(self.limits.grace_seconds)
                state = hub.state
                if state.phase == OVER or state.bots >> seat & 1:
                    return
                _log.info("seat_grace_expired", game_id=hub.game_id, seat=seat)
                command_id = f"{player_id}:grace-leave:{state.version}"
                for attempt in range(6):  # the same command id: applied once however often
                    try:
                        await self._send(None, hub.game_id, command_id,
                                         cmd.LeaveSeat(seat=seat, at=now_ms()))
                        return
                    except LobbyError as exc:
                        if exc.code not in TRANSIENT:
                            return  # the rules refused (the seat is a bot's already, ...)
                        _log.warning("seat_leave_retry", game_id=hub.game_id, seat=seat,
                                     code=exc.code, attempt=attempt)
                        await asyncio.sleep(0.25 * (attempt + 1))
            finally:
                if self.grace.get(key) is task:
                    del self.grace[key]

        task = asyncio.get_running_loop().create_task(expire())
        self.grace[key] = task

    def cancel_grace(self, game_id: str, seat: int) -> None:
        task = self.grace.pop((game_id, seat), None)
        if task is not None:
            task.cancel()

    # --- public summary ----------------------------------------------------------------------

    async def summary(self, game_id: str) -> GameSummary:
        """From the followed state when this gateway has it, else from the stored events."""
        table = await self.tables.summary_base(game_id)
        hub = self.hubs.get(game_id)
        if hub is not None and hub.ready.is_set():
            state = hub.state
        else:
            try:
                reply = await self.games.events_after(game_id, 0)
            except GameUnavailable:
                raise LobbyError(503, GAME_UNAVAILABLE, "no game worker answered") from None
            state = fold(self.registry.decode(env.type, env.schema_version, env.body)  # type: ignore[misc]
                         for env in reply.events)
        return summary(table, view(state, None))

    # --- tables ------------------------------------------------------------------------------

    async def game_over(self, hub: Hub) -> None:
        with contextlib.suppress(LobbyError):
            await self.tables.finish(hub.table.table_id)

    async def _on_table_changed(self, note: TableChanged) -> None:
        self._changed_tables.add(note.table_id)
        if self._table_note is None or self._table_note.done():
            self._table_note = asyncio.get_running_loop().create_task(self._tables_changed())

    async def _tables_changed(self) -> None:
        await asyncio.sleep(0.05)  # one refresh for a burst of changes
        changed, self._changed_tables = self._changed_tables, set()
        watchers = [c for c in self.conns if c.watching_tables]
        if watchers:
            frame = _encoder.encode(ws.TableListFrame(tables=await self.tables.list_open()))
            for c in watchers:
                c.send_raw(frame)
        for table_id in changed:
            followers = [c for c in self.conns if table_id in c.follows]
            hubs = [h for h in self.hubs.values() if h.table.table_id == table_id]
            if not followers and not hubs:
                continue
            table = await store.get_table(self.tables.pool, table_id)
            if table is None:
                continue
            for hub in hubs:
                hub.table = table
            for c in followers:
                c.send(ws.TableFrame(table=to_api(table, c.claims.player_id)))


def _to_command(frame: ws.GameCommandFrame, at: int) -> cmd.Command:
    make: dict[type, Callable[[Any], cmd.Command]] = {
        ws.Bid: lambda f: cmd.PlaceBid(seat=f.seat, bid=f.bid, at=at),
        ws.BlindNil: lambda f: cmd.BidBlindNil(seat=f.seat, at=at),
        ws.Look: lambda f: cmd.LookAtCards(seat=f.seat, at=at),
        ws.Play: lambda f: cmd.PlayCard(seat=f.seat, card=f.card.upper(), at=at),
        ws.Premove: lambda f: cmd.SetPremove(seat=f.seat, card=f.card.upper(), at=at),
        ws.CancelPremove: lambda f: cmd.CancelPremove(seat=f.seat, at=at),
        ws.Pass: lambda f: cmd.PassCards(seat=f.seat, cards=tuple(c.upper() for c in f.cards),
                                         at=at),
        ws.Leave: lambda f: cmd.LeaveSeat(seat=f.seat, at=at),
    }
    return make[type(frame)](frame)


__all__ = ["Conn", "Gateway", "GatewayLimits"]
