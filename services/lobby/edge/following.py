"""Following a game on this gateway: its events in, each subscriber's view out.

For each game that has subscribers here, a ``Hub`` follows the game's events
on JetStream (an ordered consumer from the first event, so history and live
events arrive the same way and in order), folds them into the game's full
state, and sends each socket only what ``engine.views`` lets its seat see. A
gap on JetStream is filled from the game worker's store. The hub keeps the
last ``resume_max_events`` (event, state) pairs, no more: a socket that
resumes from further back gets a snapshot anyway. A delayed watcher (``delayed``)
gets each event only once ``watch_delay_tricks`` tricks were completed after it
(``edge.delay``), and its snapshots show the game as it stood then.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from engine.evolve import evolve
from engine.state import GameState
from engine.views import redact, turn, view
from schemas import ws
from schemas.bus import EventEnvelope
from schemas.errors.codes import GAME_UNAVAILABLE
from schemas.events import Event, GameStarted
from schemas.gamebus import ChatLine, SeatPresent
from schemas.subjects import Names
from services.lobby.base.errors import LobbyError
from services.lobby.base.settings import LobbySettings
from services.lobby.clients.broadcasts import Broadcasts
from services.lobby.clients.gameworkers import Following, GameClient, GameUnavailable
from services.lobby.edge import gaps
from services.lobby.edge.connections import Conn, Connections, PerSocket, encode
from services.lobby.edge.delay import Delay
from services.lobby.tables import store
from services.platform import logs
from services.platform.events import EventRegistry

_log = logs.get("gateway")


class Host(Protocol):
    """What a followed game needs from the gateway around it."""

    games: GameClient
    broadcasts: Broadcasts
    names: Names
    registry: EventRegistry
    settings: LobbySettings
    instance: str  # tells this gateway's presence notes from others'

    def bots_muted(self, player_id: str, game_id: str) -> bool: ...

    def seat_back(self, game_id: str, seat: int) -> None: ...  # present on another gateway


@dataclass(eq=False)
class Sub:
    """One socket following one game, as a seat or (``seat`` None) as a spectator,
    live or ``delayed``; ``by_role``: the role by which it watches a delayed game live."""

    conn: Conn
    hub: Hub
    seat: int | None
    delayed: bool = False
    by_role: str | None = None


class Followers(PerSocket[dict[str, Sub]]):
    """The games each socket follows on this gateway, game id -> its ``Sub``."""

    def __init__(self, conns: Connections) -> None:
        super().__init__(conns, dict)

    def followed(self, conn: Conn, game_id: str) -> Sub:
        """The socket's subscription to ``game_id``; ``not_in_game`` without one."""
        sub = self.of(conn).get(game_id)
        if sub is None:
            raise LobbyError("not_in_game",
                             f"this socket does not follow game {game_id}; subscribe first")
        return sub


class Hub:
    """One game followed by this gateway: its folded state, recent history, subscribers."""

    def __init__(self, host: Host, game_id: str, table: store.TableRow | None,
                 on_idle: Callable[[Hub], Awaitable[None]]) -> None:
        self.host, self.game_id, self.table, self.on_idle = host, game_id, table, on_idle
        self.state = GameState()
        # The last events and the state after each; the newest is at version state.version.
        self.history: collections.deque[tuple[Event, GameState]] = collections.deque(
            maxlen=host.settings.resume_max_events)
        self.subs: set[Sub] = set()
        self.ready = asyncio.Event()  # the stored history is in (maybe none yet)
        self.started = asyncio.Event()  # GameStarted is in: the game says who sits where
        # The events in version order, a gap filled from the worker's store.
        self.order: gaps.InOrder[Event] = gaps.InOrder(self._advance, self._fetch,
                                                      GameUnavailable)
        self.delay = Delay(host.settings.watch_delay_tricks)  # what delayed watchers see
        self._subscriptions: list[Any] = []
        self._following: Following | None = None
        self._linger: asyncio.Task[None] | None = None

    @property
    def table_id(self) -> str:
        return self.table.table_id if self.table is not None else ""

    async def start(self) -> None:
        host = self.host
        self._following = await host.games.follow(self.game_id, self._on_envelope)
        self.ready = self._following.caught_up
        self._subscriptions.append(await host.broadcasts.listen(
            host.names.game_chat(self.game_id), ChatLine, self._on_chat))
        self._subscriptions.append(await host.broadcasts.listen(
            host.names.lobby_presence(self.game_id), SeatPresent, self._on_presence))

    async def stop(self) -> None:
        if self._following is not None:
            await self._following.stop()
        for s in self._subscriptions:
            with contextlib.suppress(Exception):
                await s.unsubscribe()
        self.order.stop()

    # --- events in ---------------------------------------------------------------------

    def deliver(self, env: EventEnvelope) -> None:
        """An event from JetStream or from the store; duplicates change nothing."""
        self._on_envelope(env)

    def _on_envelope(self, env: EventEnvelope) -> None:
        try:
            event = self.host.registry.decode(env.type, env.schema_version, env.body)
        except Exception as exc:
            _log.error("undecodable_event", game_id=self.game_id, error=type(exc).__name__)
            return
        self.order.take(env.version, event)  # type: ignore[arg-type]

    async def _fetch(self, version: int) -> None:
        """A gap: the stored events after ``version``, from the game worker."""
        reply = await self.host.games.events_since(self.game_id, version)
        for env in reply.events:
            self._on_envelope(env)

    def _advance(self, event: Event) -> None:
        after = evolve(self.state, event)
        self.state = after
        self.history.append((event, after))
        released = list(self.delay.add(event, after))
        late: list[Sub] = []
        if self.subs:
            of = _Audiences(self.game_id, event, after).of
            for sub in tuple(self.subs):
                if sub.delayed:
                    late.append(sub)
                elif (data := of(sub.seat)) is not None:
                    sub.conn.send_raw(data)
            for old, then in released if late else ():
                data = _Audiences(self.game_id, old, then).of(None)
                for sub in late:
                    if data is not None:
                        sub.conn.send_raw(data)
        for bot, frame in self.delay.heard() if released else ():
            for sub in late:
                self._say(sub, bot, frame)
        if isinstance(event, GameStarted):
            self.started.set()

    def _frame(self, event: Event, after: GameState, seat: int | None) -> str | None:
        return _Audiences(self.game_id, event, after).of(seat)

    # --- chat and presence ----------------------------------------------------------------

    async def _on_chat(self, line: ChatLine) -> None:
        if line.bot and self.table is not None and not self.table.banter:
            return
        frame = encode(ws.ChatFrame(game_id=line.game_id, seat=line.seat,
                                    player_id=line.player_id, name=line.name,
                                    text=line.text, bot=line.bot, at=line.at))
        held = self.delay.say(self.state.version, line.bot, frame)  # delayed watchers' later
        for sub in list(self.subs):
            if not (held and sub.delayed):
                self._say(sub, line.bot, frame)

    def _say(self, sub: Sub, bot: bool, frame: str) -> None:
        if not (bot and self.host.bots_muted(sub.conn.player_id, self.game_id)):
            sub.conn.send_raw(frame)

    async def _on_presence(self, p: SeatPresent) -> None:
        if p.gateway != self.host.instance:
            self.host.seat_back(self.game_id, p.seat)

    # --- subscribers ----------------------------------------------------------------------

    def join(self, sub: Sub, since: int | None) -> None:
        """Bring ``sub`` up to date and add it, with no await in between, so no live
        event can slip between the catch-up and the subscription."""
        conn, state = sub.conn, self.delay.shown if sub.delayed else self.state
        missed = state.version - since if since is not None and not sub.delayed else -1
        resumed = 0 <= missed <= min(len(self.history), self.host.settings.resume_max_events)
        if resumed:
            for event, after in list(self.history)[len(self.history) - missed:]:
                data = self._frame(event, after, sub.seat)
                if data is not None:
                    conn.send_raw(data)
        else:
            self.snapshot(sub)
        conn.send(ws.Subscribed(game_id=self.game_id, table_id=self.table_id,
                                seat=sub.seat, version=state.version, resumed=resumed,
                                delayed=sub.delayed))
        self.subs.add(sub)
        if self._linger is not None:
            self._linger.cancel()
            self._linger = None

    def snapshot(self, sub: Sub) -> None:
        state = self.delay.shown if sub.delayed else self.state
        sub.conn.send(ws.Snapshot(game_id=self.game_id, table_id=self.table_id,
                                  version=state.version, view=view(state, sub.seat)))

    def leave(self, sub: Sub) -> None:
        self.subs.discard(sub)
        if not self.subs and self._linger is None:
            self._linger = asyncio.get_running_loop().create_task(self._close_later())

    def seat_watched(self, seat: int) -> bool:
        return any(s.seat == seat for s in self.subs)

    async def _close_later(self) -> None:
        await asyncio.sleep(self.host.settings.follow_linger_seconds)
        if not self.subs:
            await self.on_idle(self)


class _Audiences:
    """One event's frames, encoded once per audience rather than once per socket.

    Most seats see an event as a spectator does: the same event (``redact`` hands it
    back untouched) and a turn with no moves of their own (it is not their turn).
    Those seats share the spectator's frame; only a seat with something of its own
    (its cards, its secret bid, its legal moves) gets a frame of its own.
    """

    def __init__(self, game_id: str, event: Event, after: GameState) -> None:
        self.game_id, self.event, self.after = game_id, event, after
        self.by_seat: dict[int | None, str | None] = {}
        self._public: tuple[Event | None, ws.Turn] | None = None

    def of(self, seat: int | None) -> str | None:
        if seat in self.by_seat:
            return self.by_seat[seat]
        if seat is None:
            shown, now = self.public()
        else:
            public, public_turn = self.public()
            shown, now = redact(self.event, self.after, seat), turn(self.after, seat, public_turn)
            if now is public_turn and (shown is public or shown == public):
                data = self.by_seat[seat] = self.of(None)
                return data
        data = None if shown is None else encode(ws.EventFrame(
            game_id=self.game_id, version=self.after.version, event=shown,  # type: ignore[arg-type]
            turn=now, phase=self.after.phase))
        self.by_seat[seat] = data
        return data

    def public(self) -> tuple[Event | None, ws.Turn]:
        if self._public is None:
            self._public = redact(self.event, self.after, None), turn(self.after, None)
        return self._public


class Hubs:
    """The games this gateway follows, one hub each, started once however many ask."""

    def __init__(self, host: Host) -> None:
        self.host = host
        self.by_game: dict[str, Hub] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    def get(self, game_id: str) -> Hub | None:
        return self.by_game.get(game_id)

    def __iter__(self) -> Any:
        return iter(list(self.by_game.values()))

    async def follow(self, game_id: str, table: store.TableRow | None) -> Hub:
        lock = self._locks.setdefault(game_id, asyncio.Lock())
        async with lock:
            hub = self.by_game.get(game_id)
            if hub is None:
                hub = Hub(self.host, game_id, table, self.stop_following)
                await hub.start()
                self.by_game[game_id] = hub
            return hub

    async def started(self, hub: Hub, expected: bool) -> None:
        """Wait until ``hub`` holds the game's ``GameStarted``: the game names its seats.

        JetStream may lag the store by a moment, so a game it has not carried yet is
        read from the store. ``expected``: a table row names the game, which may be
        about to begin; otherwise a game that neither has is not found.
        """
        try:
            await asyncio.wait_for(hub.ready.wait(), 5.0)
            if not hub.started.is_set():
                try:
                    for env in (await self.host.games.events_since(hub.game_id, 0)).events:
                        hub.deliver(env)
                except GameUnavailable:
                    if expected:
                        raise
            if not hub.started.is_set() and expected:
                await asyncio.wait_for(hub.started.wait(), 5.0)
        except (TimeoutError, GameUnavailable):
            await self.stop_following(hub)
            raise LobbyError(GAME_UNAVAILABLE, "the game's events did not arrive") from None
        if not hub.started.is_set():
            await self.stop_following(hub)
            raise LobbyError("game_not_found", f"no game {hub.game_id}")

    async def stop_following(self, hub: Hub) -> None:
        """Nobody here follows ``hub``'s game any more: let it go."""
        if self.by_game.get(hub.game_id) is hub and not hub.subs:
            del self.by_game[hub.game_id]
            self._locks.pop(hub.game_id, None)
            await hub.stop()

    async def stop(self) -> None:
        for hub in list(self.by_game.values()):
            await hub.stop()
