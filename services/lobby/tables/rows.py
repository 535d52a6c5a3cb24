"""A table's row as the rooms use it: the matches room it starts games through
(``MatchStarter``), the row as a viewer may see it (``to_api``), and ``TableRows``: find
a row (by id, or by room code, counting wrong guesses), change it under its lock and
announce the change."""

from __future__ import annotations

from typing import Any, Protocol

from schemas.api import SeatInfo, Table
from schemas.matches import MatchOpened, OpenMatch
from schemas.notes import MatchOffered
from services.lobby.accounts.auth import Claims
from services.lobby.base.errors import LobbyError
from services.lobby.base.throttle import CodeGuesses
from services.lobby.clients.broadcasts import Broadcasts
from services.lobby.clients.gameworkers import GameClient
from services.lobby.tables import playagain, store
from services.lobby.tables.playing import Playing
from services.lobby.tables.watching import may_watch


class MatchStarter(Protocol):
    """What a table needs of the matches room above it (``Matches``): start its game,
    and the ready checks a player is offered."""

    async def open(self, req: OpenMatch,
                   table: store.TableRow | None = None) -> MatchOpened: ...

    async def offers(self, player_id: str) -> list[MatchOffered]: ...


def to_api(t: store.TableRow, viewer: str | None) -> Table:
    """The table as ``viewer`` may see it: the room code only for those at the table."""
    at_table = viewer is not None and (viewer == t.host
                                       or any(s.player_id == viewer for s in t.seats))
    return Table(
        table_id=t.table_id, host=t.host, private=t.private,
        code=t.code if at_table else None, rules=t.rules, preset=t.preset,
        seats=[SeatInfo(seat=i, player_id=s.player_id, name=s.name,
                          bot=s.bot, guest=s.guest)  # type: ignore[arg-type]
               for i, s in enumerate(t.seats)],
        free_seats=[i for i, s in enumerate(t.seats) if s.free], state=t.state,  # type: ignore[arg-type]
        game_id=t.game_id, banter=t.banter, play_again=playagain.agreed(t))


class TableRows:
    """A table's row: found by id or room code, changed under its lock and announced."""

    def __init__(self, pool: store.Pool, games: GameClient, broadcasts: Broadcasts,
                 matches: MatchStarter, guesses: CodeGuesses | None = None) -> None:
        self.pool, self.games, self.matches = pool, games, matches
        self.playing = Playing(pool, games)
        self.broadcasts = broadcasts
        self.guesses = guesses or CodeGuesses("20/10 minutes")

    async def _by_code(self, me: Claims, code: str) -> store.TableRow:
        """The table with room code ``code``; a wrong one counts against the caller."""
        self.guesses.check(me.player_id)
        t = await store.table_by_code(self.pool, code.strip().upper())
        if t is None:
            self.guesses.missed(me.player_id)
            raise LobbyError("table_not_found", "no table has that room code")
        return t

    def may_watch(self, t: store.TableRow | None, me: str, code: str | None) -> bool:
        """``me`` may watch ``t``'s game (``watching.may_watch``: True, delayed); a wrong
        code counts."""
        if code:
            self.guesses.check(me)
        try:
            return may_watch(t, me, code)
        except LobbyError:
            if code:
                self.guesses.missed(me)
            raise

    async def _get(self, table_id: str) -> store.TableRow:
        t = await store.get_table(self.pool, table_id)
        if t is None:
            raise LobbyError("table_not_found", f"no table {table_id}")
        return t

    async def _change(self, table_id: str, change: Any,
                      seating: str | None = None) -> store.TableRow:
        """``change`` the row under its lock and announce it. ``seating``: the person the
        change seats, refused (``in_game``) while they play at another table."""
        if seating is not None:
            await self.playing.refuse(seating, here=table_id)
        try:
            before, after = await store.change_table(self.pool, table_id, change)
        except store.NotFound:
            raise LobbyError("table_not_found", f"no table {table_id}") from None
        if after != before:
            await self.broadcasts.table_changed(after.table_id, after.game_id or "")
        return after
