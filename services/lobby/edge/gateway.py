"""The WebSocket gateway's service side, put together from its parts.

- ``connections``: sockets, their limits and their outgoing frames;
- ``following``: a game followed on JetStream, each subscriber's view fanned out;
- ``commands``: game commands to the worker; ``grace``: a dropped seat's grace;
- ``chat``: table talk and muting bots; ``tablefeed``: open tables to watchers;
- ``notes``: notes to a player (``player.note.<id>``) out to all of its sockets;
- ``ranked.queue``: built by the service; the gateway routes its frames and its
  sockets' closing to it (a ticket lives while its socket is open);
- ``tournamentfeed``: followed tournaments' events out to their watchers;
- ``rolecheck``: a watch by a role (live though delayed) checked again while it lasts;
- ``frames``: the table from client frame type to handler.

This module keeps what ties them: subscribing to a game (which seat, if any,
a socket follows: the game's own events say, see ``seating``), leaving, and a
game's public summary. Nothing here knows
the transport: a ``Conn`` is handed frames to send and the transport writes them.
"""

from __future__ import annotations

import asyncio

import msgspec

from engine.evolve import fold
from engine.state import OVER, GameState
from engine.views import view
from schemas import commands as cmd
from schemas import ws
from schemas.api import GameSummary
from schemas.errors.codes import GAME_UNAVAILABLE
from schemas.events import Event
from schemas.play import SeatPresent
from schemas.subjects import Names
from services.lobby.accounts.auth import Claims
from services.lobby.base.clock import now_ms
from services.lobby.base.errors import LobbyError
from services.lobby.base.settings import LobbySettings
from services.lobby.clients.broadcasts import Broadcasts
from services.lobby.clients.games import GameClient, GameUnavailable
from services.lobby.edge.chat import Chat
from services.lobby.edge.commands import Commands
from services.lobby.edge.connections import Conn, Connections
from services.lobby.edge.delay import delayed_state, live_watcher
from services.lobby.edge.following import Hubs, Sub, followed
from services.lobby.edge.frames import FrameTable
from services.lobby.edge.grace import Grace
from services.lobby.edge.notes import Notes
from services.lobby.edge.offers import Offers, QueueFrames
from services.lobby.edge.rolecheck import RoleCheck
from services.lobby.edge.tablefeed import TableFeed
from services.lobby.edge.tournamentfeed import TournamentFeed
from services.lobby.ranked.queue import Queue
from services.lobby.tables import store
from services.lobby.tables.rows import to_api
from services.lobby.tables.seating import seat_of
from services.lobby.tables.tables import Tables, summary
from services.lobby.tournaments.tournaments import Tournaments
from services.lobby.tournaments.unseen import Unseen
from services.platform.events import game_registry


class Gateway:
    def __init__(self, tables: Tables, games: GameClient, broadcasts: Broadcasts, names: Names,
                 settings: LobbySettings, tournaments: Tournaments, queue: Queue) -> None:
        self.tables, self.games, self.names, self.settings = tables, games, names, settings
        self.broadcasts = broadcasts
        # One id for this gateway: it tells its presence notes from others', and it is the
        # id the queue stamps its sockets' tickets with (the service chose it).
        self.instance = queue.gateway
        self.registry = game_registry()
        self.conns = Connections(settings)
        self.roles = RoleCheck(tables.pool, self.conns, settings.role_check_seconds)
        self.hubs = Hubs(self)
        self.commands = Commands(games)
        self.grace = Grace(self.commands, settings.disconnect_grace_seconds)
        self.chat = Chat(broadcasts, settings.chat_max_chars)
        self.feed = TableFeed(tables, broadcasts, names, self.conns, self.hubs)
        self.notes = Notes(broadcasts, self.conns)
        self.queue = queue
        self.organizing = tournaments  # a tournament's organizer watches its games live
        self.unseen = Unseen(tables.pool, tournaments.bus)  # duplicate deals not yet played
        self.tournaments = TournamentFeed(tournaments, broadcasts, names, self.conns)
        self.placed = tournaments.placed  # where a game comes from, for its summary
        self.frames = FrameTable(
            {ws.Subscribe: self.on_subscribe, ws.Unsubscribe: self.on_unsubscribe,
             ws.SnapshotRequest: self.on_snapshot, ws.Ping: self.on_ping},
            self.commands.handlers(), self.chat.handlers(), self.feed.handlers(),
            Offers(queue.matches).handlers(), QueueFrames(queue).handlers(),
            self.tournaments.handlers())
        self._closing: set[asyncio.Task[None]] = set()
        self._open = False

    async def start(self) -> None:
        await self.feed.start()
        await self.notes.start()
        await self.tournaments.start()
        self.roles.start()
        self._open = True

    async def stop(self) -> None:
        self._open = False
        await self.roles.stop()
        self.conns.close_all()
        self.grace.stop()
        await self.hubs.stop()
        await self.feed.stop()
        await self.notes.stop()
        await self.tournaments.stop()

    @property
    def running(self) -> bool:
        """Ready for sockets: started, and not yet stopping (readiness turns 503 first)."""
        return self._open

    # --- what followed games need (following.Host) -----------------------------------------

    def bots_muted(self, player_id: str, game_id: str) -> bool:
        return self.chat.bots_muted(player_id, game_id)

    def seat_back(self, game_id: str, seat: int) -> None:
        self.grace.cancel(game_id, seat)

    # --- sockets ---------------------------------------------------------------------------

    def connect(self, claims: Claims) -> Conn:
        return self.conns.open(claims)

    def disconnect(self, conn: Conn) -> None:
        if not self.conns.remove(conn):
            return
        for sub in list(conn.subs.values()):
            self._leave(sub)
        conn.subs.clear()
        if conn.id in self.queue.sockets:  # its ticket goes with it
            task = asyncio.create_task(self.queue.socket_closed(conn.id))
            self._closing.add(task)
            task.add_done_callback(self._closing.discard)

    async def handle(self, conn: Conn, frame: ws.ClientFrame) -> None:
        await self.frames.handle(conn, frame)

    def _leave(self, sub: Sub) -> None:
        sub.hub.leave(sub)
        if sub.seat is not None:
            self.grace.start(sub.hub, sub.seat, sub.conn.player_id)

    # --- following a game --------------------------------------------------------------------

    async def on_ping(self, conn: Conn, frame: ws.Ping) -> None:
        conn.send(ws.Pong(nonce=frame.nonce, at=now_ms()))

    async def on_snapshot(self, conn: Conn, frame: ws.SnapshotRequest) -> None:
        sub = followed(conn, frame.game_id)
        sub.hub.snapshot(sub)

    async def on_unsubscribe(self, conn: Conn, frame: ws.Unsubscribe) -> None:
        sub = followed(conn, frame.game_id)
        del conn.subs[frame.game_id]
        self._leave(sub)

    async def on_subscribe(self, conn: Conn, frame: ws.Subscribe) -> None:
        me = conn.player_id
        if frame.game_id:
            game_id = frame.game_id
            table = await store.table_by_game(self.tables.pool, game_id)  # none: no table
        elif frame.table_id:
            table = await store.get_table(self.tables.pool, frame.table_id)
            if table is None:
                raise LobbyError("table_not_found", f"no table {frame.table_id}")
            conn.follows.add(table.table_id)
            if table.game_id is None:
                conn.send(ws.TableFrame(table=to_api(table, me)))
                return
            game_id = table.game_id
        else:
            raise LobbyError("bad_field", "subscribe names a game_id or a table_id")
        # Before the game is even read: a stranger learns nothing of it.
        delayed, by_role = await watching(self, game_id, table, conn.claims, frame.code) \
            if frame.spectate else (False, None)
        cap = self.settings.ws_games_per_socket
        if game_id not in conn.subs and len(conn.subs) >= cap:
            raise LobbyError("too_many_games", f"one socket follows at most {cap} games")
        hub = await self.hubs.follow(game_id, table)
        await self.hubs.started(hub, expected=table is not None)
        seat = seat_of(hub.state, me)
        if seat is not None and frame.spectate:
            raise LobbyError("seated_cannot_spectate",
                             "you hold a seat in this game; follow it as that seat")
        if seat is None and not frame.spectate:
            raise LobbyError("not_in_game",
                             "you hold no seat in this game; subscribe with spectate")
        if frame.since is not None:
            await hub.reach(frame.since)
        returning: LobbyError | None = None
        state = hub.state
        if seat is not None and state.phase != OVER and state.bots >> seat & 1:
            # Back in the seat before the catch-up, so what follows already says so.
            try:
                version, _ = await self.commands.send(
                    me, game_id, f"{me}:return:{state.version}",
                    cmd.ReturnToSeat(seat=seat, at=now_ms()))
                await hub.reach(version)
            except LobbyError as exc:
                returning = exc
        old = conn.subs.pop(game_id, None)
        if old is not None:
            hub.leave(old)
        sub = Sub(conn, hub, seat, delayed, by_role)
        conn.subs[game_id] = sub
        hub.join(sub, frame.since if frame.since is not None and
                 frame.since <= hub.state.version else None)
        if seat is None and table is not None and not delayed:
            # A spectator learns of the table's next game; a delayed one is not told of
            # the table's changes (its game's end) ahead of the game's own events.
            conn.follows.add(table.table_id)
        if seat is not None:
            self.grace.cancel(game_id, seat)
            await self.broadcasts.seat_present(SeatPresent(game_id=game_id, seat=seat, player_id=me,
                                                      gateway=self.instance))
        if returning is not None:
            raise returning

    # --- public summary ----------------------------------------------------------------------

    async def summary(self, game_id: str, claims: Claims, code: str | None) -> GameSummary:
        """From the followed state when this gateway has it, else from the stored events.
        A private table's game only to those who may watch it; a delayed watcher's as
        they see it."""
        table = await self.tables.summary_base(game_id)
        delayed, _ = await watching(self, game_id, table, claims, code)
        hub = self.hubs.get(game_id)
        if hub is not None and hub.ready.is_set():
            state = hub.delay.shown if delayed else hub.state
        else:
            state = await stored_state(self, game_id,
                                       self.settings.watch_delay_tricks if delayed else None)
        origin, tournament = await self.placed(game_id)
        return msgspec.structs.replace(summary(table, view(state, None)), origin=origin,
                                       tournament=tournament)


async def watching(gateway: Gateway, game_id: str, table: store.TableRow | None,
                   me: Claims, code: str | None) -> tuple[bool, str | None]:
    """Whether ``me`` watches ``game_id`` (``table``'s) delayed (``watching.may_watch``),
    and the role by which it watches a delayed one's live (an operator, a tournament
    game's organizer: ``live_watcher``). First of all, a duplicate round's game is
    refused to one still to play its deals, whatever their role
    (``tournaments.unseen``: 403 ``deal_not_finished``)."""
    await gateway.unseen.check(me, game_id)
    if not gateway.tables.may_watch(table, me.player_id, code):
        return False, None
    assert table is not None and table.game_id is not None
    by_role = await live_watcher(gateway.tables.pool, gateway.organizing.bus,
                                 table.game_id, me)
    return by_role is None, by_role


async def stored_state(gateway: Gateway, game_id: str, delay: int | None) -> GameState:
    """A game's state folded from its stored events (``delay`` tricks behind, if given)."""
    try:
        reply = await gateway.games.events_after(game_id, 0)
    except GameUnavailable:
        raise LobbyError(GAME_UNAVAILABLE, "no game worker answered") from None
    events: list[Event] = [
        gateway.registry.decode(env.type, env.schema_version, env.body)  # type: ignore[misc]
        for env in reply.events]
    return fold(events) if delay is None else delayed_state(events, delay)


__all__ = ["Conn", "Gateway"]
