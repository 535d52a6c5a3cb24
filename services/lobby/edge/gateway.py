"""The WebSocket gateway's service side, put together from its parts.

- ``connections``: sockets, their limits and their outgoing frames, and the state
  each feature keeps of each socket (``PerSocket``), forgotten when it closes;
- ``following``: a game followed on JetStream, each subscriber's view fanned out,
  and the games each socket follows (``Followers``);
- ``commands``: game commands to the worker; ``grace``: a dropped seat's grace;
- ``chat``: table talk and muting bots; ``tablefeed``: open tables to watchers;
- ``notes``: notes to a player (``player.note.<id>``) out to all of its sockets;
- ``ranked.queue``: built by the service; the gateway routes its frames and its
  sockets' closing to it (a ticket lives while its socket is open);
- ``tournamentfeed``: followed tournaments' events out to their watchers;
- ``rolecheck``: a watch by a role (live though delayed) checked again while it lasts;
- ``frames``: the table from client frame type to handler;
- ``subscriptions``: following a game as a seat or a watcher, leaving it, and a
  game's public summary.

This module builds them and ties a socket's life to them (connecting, handing its
frames to the table, closing). Nothing here knows the transport: a ``Conn`` is
handed frames to send and the transport writes them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from functools import partial
from typing import Any

from schemas import ws
from schemas.api import GameSummary
from schemas.subjects import Names
from services.lobby.accounts.auth import Claims
from services.lobby.base.clock import now_ms
from services.lobby.base.settings import LobbySettings
from services.lobby.clients.broadcasts import Broadcasts
from services.lobby.clients.gameworkers import GameClient
from services.lobby.edge.chat import Chat
from services.lobby.edge.commands import Commands
from services.lobby.edge.connections import Conn, Connections
from services.lobby.edge.following import Followers, Hubs
from services.lobby.edge.frames import FrameTable
from services.lobby.edge.grace import Grace
from services.lobby.edge.notes import Notes
from services.lobby.edge.offers import Offers, QueueFrames
from services.lobby.edge.rolecheck import RoleCheck
from services.lobby.edge.subscriptions import Subscriptions
from services.lobby.edge.tablefeed import TableFeed
from services.lobby.edge.tournamentfeed import TournamentFeed
from services.lobby.matches import store as matchstore
from services.lobby.ranked.moving import QueueMoves
from services.lobby.ranked.queue import Queue
from services.lobby.tables.tables import Tables
from services.lobby.tournaments.relay import Tournaments
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
        self.followers = Followers(self.conns)  # the games each socket follows
        self.hubs = Hubs(self)
        self.commands = Commands(games, self.followers)
        self.grace = Grace(self.commands, settings.disconnect_grace_seconds)
        self.chat = Chat(broadcasts, settings.chat_max_chars, self.followers)
        self.feed = TableFeed(tables, broadcasts, names, self.conns, self.hubs)
        self.roles = RoleCheck(tables.pool, self.followers, self.feed.follows,
                               settings.role_check_seconds)
        self.notes = Notes(broadcasts, self.conns,
                           partial(matchstore.trace_of_game, tables.pool))
        self.queue = queue
        self.queue_moves = QueueMoves(queue)  # a ticket waits for its player's next socket
        self.organizing = tournaments  # a tournament's organizer watches its games live
        self.unseen = Unseen(tables.pool, tournaments.bus)  # duplicate deals not yet played
        self.tournaments = TournamentFeed(tournaments, broadcasts, names, self.conns)
        self.subscriptions = Subscriptions(self)
        self.frames = FrameTable(
            {ws.Ping: self.on_ping}, self.subscriptions.handlers(),
            self.commands.handlers(), self.chat.handlers(), self.feed.handlers(),
            Offers(queue.matches).handlers(), QueueFrames(queue).handlers(),
            self.tournaments.handlers())
        self._closing: set[asyncio.Task[None]] = set()
        self._open = False
        self.draining = False

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

    async def drain(self) -> None:
        """This copy is stopping: every socket is told to move (a ``moving`` frame, then
        close 1012) as soon as the frame it is handling has its answer queued, and new
        sockets are closed with 1012 at once. The clients connect again elsewhere and
        resume; a queued player's ticket waits for their next socket
        (``QueueMoves``). Returns once every socket has gone, or after the grace."""
        self.draining = True
        await self.queue_moves.moving([c.id for c in self.conns.all])
        for conn in list(self.conns.all):
            conn.moving = True
            if not conn.busy:
                self.move(conn)
        deadline = asyncio.get_running_loop().time() + self.settings.shutdown_grace_seconds
        while self.conns.all and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.02)

    def move(self, conn: Conn) -> None:
        conn.moving = True
        conn.send(ws.Moving(message="this server is restarting: connect again and resume"))
        conn.close()

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
        conn = self.conns.open(claims)
        if not claims.guest:  # a registered player's ticket may wait for this socket
            self._spawn(self.queue_moves.adopt(conn.player_id, conn.id))
        return conn

    def disconnect(self, conn: Conn) -> None:
        subs = self.followers.get(conn)  # the socket's removal forgets them
        if not self.conns.remove(conn):
            return
        for sub in list(subs.values()) if subs else ():
            self.subscriptions.leave(sub)
        if conn.id in self.queue.sockets:  # its ticket goes with it (unless it moved)
            self._spawn(self.queue.socket_closed(conn.id))

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(work)
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    async def handle(self, conn: Conn, frame: ws.ClientFrame) -> None:
        await self.frames.handle(conn, frame)

    async def on_ping(self, conn: Conn, frame: ws.Ping) -> None:
        conn.send(ws.Pong(nonce=frame.nonce, at=now_ms()))

    async def summary(self, game_id: str, claims: Claims, code: str | None) -> GameSummary:
        """A game's public summary, as ``claims`` may see it (``subscriptions``)."""
        return await self.subscriptions.summary(game_id, claims, code)


__all__ = ["Conn", "Gateway"]
