"""A table's games begun: the first by its host, each next one once everyone seated
agreed to play again (``playagain``: the pure decisions). Every game starts as a match
of origin ``table`` through the matches room's ``MatchStarter`` the tables are handed.
"""

from __future__ import annotations

import uuid

from schemas.api import Table
from schemas.errors.codes import TABLE_STARTED
from schemas.matches import MatchSeat, OpenMatch
from schemas.notes import PlayAgainAsked
from services.lobby.accounts.auth import Claims
from services.lobby.base.errors import LobbyError
from services.lobby.clients.gameworkers import GameUnavailable
from services.lobby.tables import playagain, store
from services.lobby.tables.hosting import HostOptions
from services.lobby.tables.rows import to_api


class Starts(HostOptions):
    async def start(self, me: Claims, table_id: str) -> Table:
        """The host starts the table's game as a match of origin ``table``: empty seats
        get basic bots (and, when playing again, the seats of people who did not agree).
        A start that fails leaves the table open again."""
        t = await self._get(table_id)
        self._host_of_open(t, me)
        return to_api(await self._start(t), me.player_id)

    async def _start(self, t: store.TableRow) -> store.TableRow:
        seats = tuple(MatchSeat(player_id=s.player_id) if s.player_id else
                      MatchSeat(bot=s.bot or "basic") for s in playagain.playing_on(t))
        opened = await self.matches.open(OpenMatch(
            match_id=f"table-{uuid.uuid4().hex}", seats=seats,  # type: ignore[arg-type]
            rules=t.rules, rated=False, origin="table", origin_id=t.table_id,
            banter=t.banter), table=t)
        return await self._get(opened.table_id)

    async def play_again(self, me: Claims, table_id: str) -> Table:
        """Ask for another game at this table, or agree to one asked for: the first ask
        tells the other people seated; the last agreement starts the game."""
        before = await self._ended_now(await self._get(table_id))
        t = await self._change(table_id, lambda row: playagain.ask(row, me.player_id),
                               seating=me.player_id)
        if before.state == "over" and t.play_again == (me.player_id,):  # the first ask
            for seat, s in enumerate(t.seats):
                if s.player_id and s.player_id != me.player_id:
                    await self.broadcasts.note(s.player_id, PlayAgainAsked(
                        table_id=t.table_id, game_id=before.game_id or "", asked_by=me.name,
                        seat=seat))
        return to_api(await self._go_on_if_agreed(t), me.player_id)

    async def _ended_now(self, t: store.TableRow) -> store.TableRow:
        """The table as its game's own store has it: a player who saw ``GameEnded`` may
        ask for another game before the games projection closed the table, and is not
        told the game still runs (no worker answering: the table stands as it is)."""
        if t.state != "playing" or t.game_id is None:
            return t
        try:
            if await self.games.ending(t.game_id) is None:
                return t
        except GameUnavailable:
            return t
        await store.close_table_of(self.pool, t.game_id)  # the projection finds it done
        return await self._get(t.table_id)

    async def _go_on_if_agreed(self, t: store.TableRow) -> store.TableRow:
        """Start the next game once every seat agreed; whoever gets there first starts
        it, and a later ask finds the table playing already."""
        if not playagain.everyone_agreed(t):
            return t
        try:
            return await self._start(t)
        except LobbyError as exc:
            if exc.code != TABLE_STARTED:
                raise
            return await self._get(t.table_id)
