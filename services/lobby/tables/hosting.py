"""What the host of an open table may set: bots on seats, rule options, bot banter."""

from __future__ import annotations

from typing import Any

import msgspec

from engine.presets import PRESETS
from schemas.api import Table
from schemas.errors.codes import TABLE_STARTED
from services.lobby.accounts.auth import Claims
from services.lobby.base.errors import LobbyError
from services.lobby.base.rulesets import rules_of
from services.lobby.tables import store
from services.lobby.tables.rows import TableRows, to_api


class HostOptions(TableRows):
    async def set_bots(self, me: Claims, table_id: str, seat: int | None, level: str,
                       remove: bool) -> Table:
        def bots(t: store.TableRow) -> store.TableRow:
            self._host_of_open(t, me)
            seats = list(t.seats)
            targets = [seat] if seat is not None else [i for i, s in enumerate(seats) if s.free]
            for i in targets:
                if seats[i].player_id is not None:
                    raise LobbyError("seat_taken", f"a player sits at seat {i}")
                seats[i] = store.Seat() if remove else store.Seat(bot=level, name=f"Bot {i + 1}")
            return t.with_(seats=tuple(seats))

        return to_api(await self._change(table_id, bots), me.player_id)

    @staticmethod
    def _host_of_open(t: store.TableRow, me: Claims) -> None:
        if t.host != me.player_id:
            raise LobbyError("not_host", "only the table's host may do that")
        if t.state != "open":
            raise LobbyError(TABLE_STARTED, "the game has already started")

    async def change_rules(self, me: Claims, table_id: str, overrides: dict[str, Any]) -> Table:
        def rules(t: store.TableRow) -> store.TableRow:
            self._host_of_open(t, me)
            if not t.private:
                raise LobbyError("public_rules_fixed", "a public table keeps its preset")
            if "preset" in overrides:
                raise LobbyError("bad_rules", "change options, or reset to the preset")
            merged = {**t.rules, **overrides, "preset": t.preset}
            return t.with_(rules=rules_of(merged)[1])

        return to_api(await self._change(table_id, rules), me.player_id)

    async def reset_rules(self, me: Claims, table_id: str) -> Table:
        def reset(t: store.TableRow) -> store.TableRow:
            self._host_of_open(t, me)
            return t.with_(rules=msgspec.to_builtins(PRESETS[t.preset]))

        return to_api(await self._change(table_id, reset), me.player_id)

    async def set_banter(self, me: Claims, table_id: str, banter: bool) -> Table:
        def switch(t: store.TableRow) -> store.TableRow:
            if t.host != me.player_id:
                raise LobbyError("not_host", "only the table's host may do that")
            return t.with_(banter=banter)

        return to_api(await self._change(table_id, switch), me.player_id)
