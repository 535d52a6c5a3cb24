"""Following a game on a socket: as its seat or as a watcher, live or delayed.

``subscribe`` names a game or a table (whose game it follows, and whose next game it
hears of). Who may watch is decided before anything of the game is read: a duplicate
round's table is refused to one still to play its deals (``tournaments.unseen``), a
private table's game needs its room code (``tables.watching``), and a ranked or
tournament game is watched a few tricks behind except by those whose role lets them
watch it live (``delay.live_watcher``). Which seat a socket holds is the game's own
events' to say (``tables.seating``). Leaving a seat starts its grace; a game's public
summary is read here too, as the caller may see it.
"""

from __future__ import annotations

from typing import Any, Protocol

import msgspec

from engine.evolve import fold
from engine.state import OVER, GameState
from engine.views import view
from schemas import commands as cmd
from schemas import ws
from schemas.api import GameSummary
from schemas.errors.codes import GAME_UNAVAILABLE
from schemas.events import Event
from schemas.gamebus import SeatPresent
from services.lobby.accounts.auth import Claims
from services.lobby.base.clock import now_ms
from services.lobby.base.errors import LobbyError
from services.lobby.base.settings import LobbySettings
from services.lobby.clients.broadcasts import Broadcasts
from services.lobby.clients.gameworkers import GameClient, GameUnavailable
from services.lobby.edge.commands import Commands
from services.lobby.edge.connections import Conn
from services.lobby.edge.delay import delayed_state, live_watcher
from services.lobby.edge.following import Followers, Hub, Hubs, Sub
from services.lobby.edge.grace import Grace
from services.lobby.edge.tablefeed import TableFeed
from services.lobby.matches import store as matchstore
from services.lobby.tables import store
from services.lobby.tables.rows import to_api
from services.lobby.tables.seating import seat_of
from services.lobby.tables.tables import Tables, summary
from services.lobby.tournaments.relay import Tournaments
from services.lobby.tournaments.unseen import Unseen
from services.platform.events import EventRegistry


class Parts(Protocol):
    """What following a game takes from the gateway that built the parts."""

    tables: Tables
    games: GameClient
    broadcasts: Broadcasts
    settings: LobbySettings
    registry: EventRegistry
    hubs: Hubs
    followers: Followers  # the games each socket follows
    feed: TableFeed  # the tables each socket follows
    commands: Commands
    grace: Grace
    unseen: Unseen  # duplicate deals not yet played
    organizing: Tournaments  # a tournament's organizer watches its games live
    instance: str  # this gateway, in its presence notes


class Subscriptions:
    def __init__(self, parts: Parts) -> None:
        self.tables, self.games, self.broadcasts = parts.tables, parts.games, parts.broadcasts
        self.settings, self.registry, self.hubs = parts.settings, parts.registry, parts.hubs
        self.commands, self.grace, self.unseen = parts.commands, parts.grace, parts.unseen
        self.organizing, self.instance = parts.organizing, parts.instance
        self.followers, self.feed = parts.followers, parts.feed
        self.tables_followed = parts.feed.follows
        self.placed = parts.organizing.placed  # where a game comes from, for its summary

    def handlers(self) -> dict[type[ws.ClientFrame], Any]:
        return {ws.Subscribe: self.on_subscribe, ws.Unsubscribe: self.on_unsubscribe,
                ws.SnapshotRequest: self.on_snapshot}

    def leave(self, sub: Sub) -> None:
        sub.hub.leave(sub)
        if sub.seat is not None:
            self.grace.start(sub.hub, sub.seat, sub.conn.player_id)

    async def on_snapshot(self, conn: Conn, frame: ws.SnapshotRequest) -> None:
        sub = self.followers.followed(conn, frame.game_id)
        sub.hub.snapshot(sub)

    async def on_unsubscribe(self, conn: Conn, frame: ws.Unsubscribe) -> None:
        sub = self.followers.followed(conn, frame.game_id)
        del self.followers.of(conn)[frame.game_id]
        self.leave(sub)

    async def on_subscribe(self, conn: Conn, frame: ws.Subscribe) -> None:
        me = conn.player_id
        target = await self._target(conn, frame)
        if target is None:
            return
        game_id, table = target
        # Before the game is even read: a stranger learns nothing of it.
        delayed, by_role = await self._watching(game_id, table, conn.claims, frame.code) \
            if frame.spectate else (False, None)
        cap, subs = self.settings.ws_games_per_socket, self.followers.of(conn)
        if game_id not in subs and len(subs) >= cap:
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
            await hub.order.reach(frame.since)
        returning = await self._back_in_seat(me, hub, seat)
        old = subs.pop(game_id, None)
        if old is not None:
            hub.leave(old)
        sub = Sub(conn, hub, seat, delayed, by_role)
        subs[game_id] = sub
        hub.join(sub, frame.since if frame.since is not None and
                 frame.since <= hub.state.version else None)
        if table is not None and not delayed and (seat is None or frame.table_id):
            # A spectator, and whoever follows the table itself, learns of the table's
            # next game; a delayed watcher is not told of the table's changes (its game's
            # end) ahead of the game's own events, nor is anyone refused above.
            self.tables_followed.of(conn).add(table.table_id)
        if seat is not None:
            self.grace.cancel(game_id, seat)
            await self.broadcasts.seat_present(SeatPresent(game_id=game_id, seat=seat, player_id=me,
                                                      gateway=self.instance))
        if returning is not None:
            raise returning

    async def _target(self, conn: Conn,
                      frame: ws.Subscribe) -> tuple[str, store.TableRow | None] | None:
        """The game ``frame`` names, and its table if it has one; None for a table with
        no game yet, whose row is sent instead (and whose changes the socket hears)."""
        if frame.game_id:
            return frame.game_id, await matchstore.table_of_game(self.tables.pool, frame.game_id)
        if not frame.table_id:
            raise LobbyError("bad_field", "subscribe names a game_id or a table_id")
        table, changed = await self.feed.read(frame.table_id)
        if table is None:
            raise LobbyError("table_not_found", f"no table {frame.table_id}")
        if table.game_id is not None:
            return table.game_id, table  # the game's subscription decides, below
        self.feed.follow(conn, frame.table_id, changed)
        conn.send(ws.TableFrame(table=to_api(table, conn.player_id)))
        return None

    async def _back_in_seat(self, me: str, hub: Hub, seat: int | None) -> LobbyError | None:
        """A seat a bot kept for ``me`` is taken back before the catch-up, so what follows
        already says so; the refusal, if any, is the caller's to raise at the end."""
        state = hub.state
        if seat is None or state.phase == OVER or not state.bots >> seat & 1:
            return None
        try:
            version, _ = await self.commands.send(
                me, hub.game_id, f"{me}:return:{state.version}",
                cmd.ReturnToSeat(seat=seat, at=now_ms()))
            await hub.order.reach(version)
        except LobbyError as exc:
            return exc
        return None

    async def summary(self, game_id: str, claims: Claims, code: str | None) -> GameSummary:
        """From the followed state when this gateway has it, else from the stored events.
        A private table's game only to those who may watch it; a delayed watcher's as
        they see it."""
        table = await matchstore.table_of_game(self.tables.pool, game_id)
        if table is None:
            raise LobbyError("game_not_found", f"no game {game_id}")
        delayed, _ = await self._watching(game_id, table, claims, code)
        hub = self.hubs.get(game_id)
        if hub is not None and hub.ready.is_set():
            state = hub.delay.shown if delayed else hub.state
        else:
            state = await self._stored_state(game_id,
                                       self.settings.watch_delay_tricks if delayed else None)
        origin, tournament = await self.placed(game_id)
        return msgspec.structs.replace(summary(table, view(state, None)), origin=origin,
                                       tournament=tournament)



    async def _watching(self, game_id: str, table: store.TableRow | None, me: Claims,
                        code: str | None) -> tuple[bool, str | None]:
        """Whether ``me`` watches ``game_id`` (``table``'s) delayed (``watching.may_watch``),
        and the role by which it watches a delayed one's live (an operator, a tournament
        game's organizer: ``live_watcher``). First of all, a duplicate round's game is
        refused to one still to play its deals, whatever their role
        (``tournaments.unseen``: 403 ``deal_not_finished``)."""
        await self.unseen.check(me, game_id)
        if not self.tables.may_watch(table, me.player_id, code):
            return False, None
        assert table is not None and table.game_id is not None
        by_role = await live_watcher(self.tables.pool, self.organizing.bus,
                                     table.game_id, me)
        return by_role is None, by_role


    async def _stored_state(self, game_id: str, delay: int | None) -> GameState:
        """A game's state folded from its stored events (``delay`` tricks behind, if given)."""
        try:
            reply = await self.games.events_after(game_id, 0)
        except GameUnavailable:
            raise LobbyError(GAME_UNAVAILABLE, "no game worker answered") from None
        events: list[Event] = [
            self.registry.decode(env.type, env.schema_version, env.body)  # type: ignore[misc]
            for env in reply.events]
        return fold(events) if delay is None else delayed_state(events, delay)
