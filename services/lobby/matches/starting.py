"""Starting a match's game: its seats checked, the game created (again, after a crash:
the worker answers a repeat as the first), the people seated told, the outcome
published; a start that failed gives the table back."""

from __future__ import annotations

import contextlib
from dataclasses import replace as dc_replace

import msgspec

from engine.bots import LEVELS
from engine.presets import resolve
from schemas.errors.codes import GAME_UNAVAILABLE, REJECTED
from schemas.gamebus import CreateGame
from schemas.matches import OpenMatch
from schemas.notes import MatchStarted
from services.lobby.accounts import store as accountstore
from services.lobby.base.errors import LobbyError
from services.lobby.clients.broadcasts import Broadcasts
from services.lobby.clients.gameworkers import GameClient, GameUnavailable
from services.lobby.matches import store
from services.lobby.matches.outcomes import Outcomes
from services.lobby.tables import store as tablestore
from services.platform import faults, logs, tracing

_log = logs.get("lobby")


class GameStarts:
    def __init__(self, pool: store.Pool, games: GameClient, broadcasts: Broadcasts,
                 outcomes: Outcomes) -> None:
        self.pool, self.games, self.outcomes = pool, games, outcomes
        self.broadcasts = broadcasts

    async def check_seats(self, req: OpenMatch) -> dict[str, tuple[str, bool]]:
        people = [s.player_id for s in req.seats if s.player_id]
        for i, s in enumerate(req.seats):
            if bool(s.player_id) == bool(s.bot):
                raise LobbyError("bad_seats", f"seat {i} names a player or a bot, "
                                              "one of the two")
            if s.bot and s.bot not in LEVELS:
                raise LobbyError("bad_seats", f"seat {i}: unknown bot level {s.bot!r}; "
                                              f"known: {', '.join(LEVELS)}")
        if len(set(people)) != len(people):
            raise LobbyError("bad_seats", "a player sits at one seat only")
        known = await accountstore.people(self.pool, people) if people else {}
        for p in people:
            if p not in known:
                raise LobbyError("player_not_found", f"no player {p}")
        if req.rated and (len(people) != 4 or not all(known[p][1] for p in people)):
            raise LobbyError("rated_needs_people",
                             "a rated match seats four registered people (no guests, no bots)")
        return known

    async def start(self, match: store.MatchRow, req: OpenMatch) -> None:
        """Create the match's game (again: the worker answers a repeat as the first) and
        tell the people seated. A person's table that could not start is open again."""
        if not tracing.on():
            await self._start(match, req)
            return
        # The game's creation continues the match's trace (its record keeps it), however
        # long after the match was opened the last confirmation (or the sweep) came: that
        # one's own span is linked.
        parent = tracing.of(match.trace)
        with tracing.span("start game", parent=parent, links=tracing.elsewhere(parent), attrs={
                "match.id": match.match_id, "game.id": match.game_id,
                "origin": match.origin, "origin.id": match.origin_id}):
            await self._start(match, req)

    async def _start(self, match: store.MatchRow, req: OpenMatch) -> None:
        faults.hit(faults.MATCH_RECORDED_BEFORE_GAME)
        create = CreateGame(
            game_id=match.game_id, command_id=f"match:{match.match_id}",
            rules=resolve(req.rules), players=tuple(  # type: ignore[arg-type]
                s.player_id or f"bot:{s.bot}" for s in req.seats),
            bot_levels=tuple(s.bot for s in req.seats),  # type: ignore[arg-type]
            rated=req.rated, table_id=match.table_id, banter=req.banter,
            deal_seed=req.deal_seed)
        try:
            reply = await self.games.create(create)
        except GameUnavailable:
            await self._give_up(match, keep=match.origin != "table")
            raise LobbyError(GAME_UNAVAILABLE, "no game worker answered; ask again "
                                               "with the same match_id") from None
        except BaseException:
            await self._give_up(match, keep=match.origin != "table")
            raise
        if not reply.ok:
            await self._give_up(match, keep=False)
            raise LobbyError(reply.code or REJECTED, reply.message)
        await store.match_state(self.pool, match.match_id, "started")
        # The players first: whoever acts on the outcome (the queue tells its players
        # they left the queue) must not reach them before they know where they sit.
        for seat, s in enumerate(req.seats):
            if s.player_id:
                await self.broadcasts.note(s.player_id, MatchStarted(
                    match_id=match.match_id, origin=req.origin, origin_id=req.origin_id,
                    table_id=match.table_id, game_id=match.game_id, seat=seat,
                    rated=req.rated))
        await self.outcomes.publish(dc_replace(match, state="started"))

    async def _give_up(self, match: store.MatchRow, keep: bool) -> None:
        """``keep``: leave the match to be finished later. Otherwise it failed, and a
        person's table is open again, not "playing" a game that never began."""
        if keep:
            return
        await store.match_state(self.pool, match.match_id, "failed")
        await tablestore.unseat(self.pool, match.game_id)
        await self.outcomes.publish(dc_replace(match, state="failed"))

        def undo(r: tablestore.TableRow) -> tablestore.TableRow:
            if r.game_id != match.game_id:
                return r
            return r.with_(state="open", game_id=None) if match.origin == "table" else \
                r.with_(state="over")

        with contextlib.suppress(store.NotFound):
            before, after = await tablestore.change_table(self.pool, match.table_id, undo)
            if after != before:
                await self.broadcasts.table_changed(after.table_id, after.game_id or "")

    async def finish_unstarted(self, older_than_seconds: float) -> int:
        """Start the matches whose starter died between the row and the game."""
        done = 0
        for match in await store.unstarted_matches(self.pool, older_than_seconds):
            req = msgspec.msgpack.decode(match.request, type=OpenMatch)
            try:
                await self.start(match, req)
                done += 1
            except LobbyError as exc:
                _log.warning("match_not_started", match_id=match.match_id, code=exc.code)
        return done
