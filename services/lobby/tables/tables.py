"""Tables: rules, seats, room codes, bots, and starting the game.

Each change is a pure decision over the table row (``_decide_*``), applied by
the store under a row lock, then announced on the bus so every gateway can
refresh the table list and the table's followers.
"""

from __future__ import annotations

import secrets
import uuid
from typing import Any

from schemas.api import CurrentGame, GameSummary, Me, SeatInfo, Table
from schemas.commands import LeaveSeat
from schemas.errors.codes import GAME_UNAVAILABLE, REJECTED, TABLE_STARTED
from schemas.gamebus import GameRequest
from services.lobby.accounts.auth import Claims
from services.lobby.base.errors import LobbyError
from services.lobby.base.rulesets import rules_of
from services.lobby.clients.gameworkers import GameUnavailable
from services.lobby.tables import playagain, store
from services.lobby.tables.playagain import seat_of
from services.lobby.tables.rows import to_api
from services.lobby.tables.starts import Starts

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: read aloud and typed
CODE_LENGTH = 6


class Tables(Starts):
    async def create(self, me: Claims, spec: str | dict[str, Any], private: bool,
                     banter: bool, seat: int | None) -> Table:
        if not private and not (isinstance(spec, str) or set(spec) <= {"preset"}):
            raise LobbyError("public_rules_fixed",
                             "a public table plays a preset as it is; open a private table "
                             "to change rules")
        preset, rules = rules_of(spec)
        seats = [store.Seat()] * 4
        if seat is not None:
            await self.playing.refuse(me.player_id)
            seats[seat] = store.Seat(player_id=me.player_id, name=me.name, guest=me.guest)
        for _ in range(10):
            row = store.TableRow(
                table_id=str(uuid.uuid4()), host=me.player_id, private=private,
                code="".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
                if private else None, rules=rules, preset=preset, seats=tuple(seats),
                banter=banter)
            try:
                await store.insert_table(self.pool, row)
                break
            except store.CodeTaken:
                continue
        else:  # pragma: no cover - 32**6 codes
            raise LobbyError("no_room_code", "no free room code; try again")
        await self.broadcasts.table_changed(row.table_id)
        return to_api(row, me.player_id)

    async def get(self, me: Claims, table_id: str) -> Table:
        return to_api(await self._get(table_id), me.player_id)

    async def list_open(self) -> list[Table]:
        return [to_api(t, None) for t in await store.open_public_tables(self.pool)]

    async def join(self, me: Claims, table_id: str, seat: int | None,
                   *, by_code: bool = False) -> Table:
        """Take a seat, unless playing elsewhere. A private table's id is no secret, so
        a newcomer needs its room code; its host and seated players do not."""
        def sit(t: store.TableRow) -> store.TableRow:
            held = seat_of(t, me.player_id)
            if t.private and not by_code and held is None and t.host != me.player_id:
                raise LobbyError("room_code_required",
                                 "a private table is joined with its room code")
            if t.state != "open":
                if held is not None:
                    return t
                raise LobbyError(TABLE_STARTED,
                                 "the game has started; watch it as a spectator")
            if held is not None and (seat is None or seat == held):
                return t
            want = seat if seat is not None else next(
                (i for i, s in enumerate(t.seats) if s.free), None)
            if want is None:
                raise LobbyError("table_full", "every seat is taken")
            if not t.seats[want].free:
                raise LobbyError("seat_taken", f"seat {want} is taken")
            seats = list(t.seats)
            if held is not None:
                seats[held] = store.Seat()
            seats[want] = store.Seat(player_id=me.player_id, name=me.name, guest=me.guest)
            return playagain.sat_down(t, t.with_(seats=tuple(seats)), me.player_id)

        t = await self._change(table_id, sit, seating=me.player_id)
        return to_api(await self._go_on_if_agreed(t), me.player_id)

    async def join_by_code(self, me: Claims, code: str, seat: int | None) -> Table:
        t = await self._by_code(me, code)
        return await self.join(me, t.table_id, seat, by_code=True)

    async def watch_by_code(self, me: Claims, code: str) -> Table:
        """A private table's game, found by its room code, to follow as a spectator
        (``subscribe`` with ``spectate`` and the same ``code``)."""
        t = await self._by_code(me, code)
        if t.game_id is None:
            raise LobbyError("table_not_started",
                             "the table's game has not started; join the table instead")
        return to_api(t, me.player_id)

    async def leave(self, me: Claims, table_id: str) -> Table:
        def stand(t: store.TableRow) -> store.TableRow:
            held = seat_of(t, me.player_id)
            if held is None:
                raise LobbyError("not_seated", "you hold no seat at this table")
            if t.state == "playing":
                return t  # the game decides what happens to a seat in play
            if t.state == "over" or t.play_again is not None:
                t = playagain.stood_up(t, held, me.player_id)  # after a game
            else:
                seats = list(t.seats)
                seats[held] = store.Seat()
                t = t.with_(seats=tuple(seats))
            people = [s.player_id for s in t.seats if s.player_id]
            host = t.host if t.host != me.player_id else (people[0] if people else t.host)
            return t.with_(host=host, state="over" if not people and host == me.player_id
                           else t.state, play_again=t.play_again if people else None)

        t = await self._change(table_id, stand)
        held = seat_of(t, me.player_id)
        if t.state == "playing" and t.game_id and held is not None:
            await self._send_leave(t.game_id, held, me.player_id)
        return to_api(await self._go_on_if_agreed(t), me.player_id)

    async def _send_leave(self, game_id: str, seat: int, player_id: str) -> None:
        try:
            reply = await self.games.command(GameRequest(
                game_id=game_id, command_id=f"{player_id}:leave:{uuid.uuid4().hex}",
                command=LeaveSeat(seat=seat), player_id=player_id))
        except GameUnavailable:
            raise LobbyError(GAME_UNAVAILABLE, "no game worker answered") from None
        if not reply.ok:
            raise LobbyError(reply.code or REJECTED, reply.message)

    async def whereabouts(self, me: Claims) -> Me:
        """The player's running games and tables: the way back in after a reload."""
        games = await store.running_games_of(self.pool, me.player_id)
        mine = await store.tables_of(self.pool, me.player_id)
        return Me(player_id=me.player_id, name=me.name,
                  games=[CurrentGame(game_id=g, table_id=t, seat=s) for g, t, s in games],
                  tables=[to_api(t, me.player_id) for t in mine],
                  offers=await self.matches.offers(me.player_id))


def summary(t: store.TableRow, view: Any) -> GameSummary:
    """The public headline of a game from its table and the spectator's view."""
    return GameSummary(
        game_id=t.game_id or "", table_id=t.table_id,
        players=[SeatInfo(seat=i, player_id=s.player_id, name=s.name,
                          bot=s.bot, guest=s.guest)  # type: ignore[arg-type]
                 for i, s in enumerate(t.seats)],
        rules=t.rules, state=view.phase, version=view.version, hand_no=view.hand_no,
        scores=view.scores, bags=view.bags, winner=view.winner, end_reason=view.end_reason)
