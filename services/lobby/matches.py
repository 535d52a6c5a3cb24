"""Starting a match: one path for a person's table, the ranked queue and tournaments.

``open`` records the match and its table (seats taken) in one transaction, then
asks a game worker to create the game. The caller's match id makes it
idempotent: a repeated ask, from any lobby copy, concurrent or after a crash,
finds the recorded match and returns its table and game. The game's id and its
creation command id are derived from the match id, so a match whose starter
died after the row and before the game was created is finished by whoever
comes next (another ask, or ``Sweeper``), and the game worker's own
idempotency makes a second creation the first one again.

A rated match seats four registered people, or it is refused (``rated_needs_people``):
never a silently unrated game. Each person seated gets a ``match_started`` note.
"""

from __future__ import annotations

import contextlib
import uuid

import msgspec

from engine.bots import LEVELS
from engine.presets import resolve
from schemas.codes import GAME_UNAVAILABLE
from schemas.matches import MatchOpened, OpenMatch
from schemas.notes import MatchStarted
from schemas.play import CreateGame
from services.lobby import store
from services.lobby.errors import LobbyError
from services.lobby.gamebus import GameBus, GameUnavailable
from services.lobby.rulesets import rules_of
from services.platform import faults, logs
from services.platform.periodic import Periodic

_log = logs.get("lobby")
_NAMESPACE = uuid.UUID("6f1d3c52-9a4e-4b8e-9a0f-5c1e2d7b8a90")  # match id -> table, game ids
NOBODY = "00000000-0000-0000-0000-000000000000"  # the host of a table no person opened


def ids_of(match_id: str) -> tuple[str, str]:
    """(table id, game id) of a match: the same on every ask and every lobby copy."""
    return (str(uuid.uuid5(_NAMESPACE, f"table:{match_id}")),
            uuid.uuid5(_NAMESPACE, f"game:{match_id}").hex)


class Matches:
    def __init__(self, pool: store.Pool, games: GameBus) -> None:
        self.pool, self.games = pool, games

    async def open(self, req: OpenMatch, table: store.TableRow | None = None) -> MatchOpened:
        """Open ``req`` (a person's open ``table`` when the origin is a table)."""
        if (req.origin == "table") != (table is not None):
            raise LobbyError(400, "bad_origin", "a person's table starts with "
                                                "POST /v1/tables/{id}/start")
        preset, rules = rules_of(req.rules)
        names = await self._check_seats(req)
        table_id, game_id = ids_of(req.match_id)
        seats = tuple(store.Seat(bot=s.bot, name=f"Bot {i + 1}") if s.bot else
                      store.Seat(player_id=s.player_id, name=names[s.player_id][0],
                                 guest=not names[s.player_id][1])
                      for i, s in enumerate(req.seats))
        if table is not None:
            row = table.with_(seats=seats, state="playing", game_id=game_id)
            table_id = table.table_id
        else:
            host = next((s.player_id for s in req.seats if s.player_id), NOBODY)
            row = store.TableRow(table_id=table_id, host=host, private=True, code=None,
                                 rules=rules, preset=preset, seats=seats, state="playing",
                                 game_id=game_id, banter=req.banter)
        asked = msgspec.msgpack.encode(req)
        try:
            match, fresh = await store.open_match(self.pool, store.MatchRow(
                match_id=req.match_id, origin=req.origin, origin_id=req.origin_id,
                rated=req.rated, table_id=table_id, game_id=game_id, request=asked),
                row, table_exists=table is not None)
        except store.TableNotOpen:
            raise LobbyError(409, "table_started", "the table is no longer open") from None
        if not fresh and match.request != asked:
            raise LobbyError(409, "match_id_reused",
                             f"match {req.match_id} was opened with another request")
        if fresh:
            await self.games.table_changed(table_id, game_id)
        if match.state == "failed":
            raise LobbyError(409, "match_failed", f"match {req.match_id} could not start")
        if match.state == "starting":
            await self._start(match, req)
        return MatchOpened(match_id=match.match_id, table_id=match.table_id,
                           game_id=match.game_id, rated=match.rated, duplicate=not fresh)

    async def _check_seats(self, req: OpenMatch) -> dict[str, tuple[str, bool]]:
        people = [s.player_id for s in req.seats if s.player_id]
        for i, s in enumerate(req.seats):
            if bool(s.player_id) == bool(s.bot):
                raise LobbyError(400, "bad_seats", f"seat {i} names a player or a bot, "
                                                   "one of the two")
            if s.bot and s.bot not in LEVELS:
                raise LobbyError(400, "bad_seats", f"seat {i}: unknown bot level {s.bot!r}; "
                                                   f"known: {', '.join(LEVELS)}")
        if len(set(people)) != len(people):
            raise LobbyError(400, "bad_seats", "a player sits at one seat only")
        known = await store.people(self.pool, people)
        for p in people:
            if p not in known:
                raise LobbyError(404, "player_not_found", f"no player {p}")
        if req.rated and (len(people) != 4 or not all(known[p][1] for p in people)):
            raise LobbyError(400, "rated_needs_people",
                             "a rated match seats four registered people (no guests, no bots)")
        return known

    async def _start(self, match: store.MatchRow, req: OpenMatch) -> None:
        """Create the match's game (again: the worker answers a repeat as the first) and
        tell the people seated. A person's table that could not start is open again."""
        faults.hit(faults.MATCH_RECORDED_BEFORE_GAME)
        create = CreateGame(
            game_id=match.game_id, command_id=f"match:{match.match_id}",
            rules=resolve(req.rules), players=tuple(  # type: ignore[arg-type]
                s.player_id or f"bot:{s.bot}" for s in req.seats),
            bot_levels=tuple(s.bot for s in req.seats),  # type: ignore[arg-type]
            rated=req.rated, table_id=match.table_id, banter=req.banter)
        try:
            reply = await self.games.create(create)
        except GameUnavailable:
            await self._give_up(match, keep=match.origin != "table")
            raise LobbyError(503, GAME_UNAVAILABLE, "no game worker answered; ask again "
                                                    "with the same match_id") from None
        except BaseException:
            await self._give_up(match, keep=match.origin != "table")
            raise
        if not reply.ok:
            await self._give_up(match, keep=False)
            raise LobbyError(409, reply.code or "rejected", reply.message)
        await store.match_state(self.pool, match.match_id, "started")
        for seat, s in enumerate(req.seats):
            if s.player_id:
                await self.games.note(s.player_id, MatchStarted(
                    match_id=match.match_id, origin=req.origin, origin_id=req.origin_id,
                    table_id=match.table_id, game_id=match.game_id, seat=seat,
                    rated=req.rated))

    async def _give_up(self, match: store.MatchRow, keep: bool) -> None:
        """``keep``: leave the match to be finished later. Otherwise it failed, and a
        person's table is open again, not "playing" a game that never began."""
        if keep:
            return
        await store.match_state(self.pool, match.match_id, "failed")

        def undo(r: store.TableRow) -> store.TableRow:
            if r.game_id != match.game_id:
                return r
            return r.with_(state="open", game_id=None) if match.origin == "table" else \
                r.with_(state="over")

        with contextlib.suppress(store.NotFound):
            before, after = await store.change_table(self.pool, match.table_id, undo)
            if after != before:
                await self.games.table_changed(after.table_id, after.game_id or "")

    async def finish_unstarted(self, older_than_seconds: float) -> int:
        """Start the matches whose starter died between the row and the game."""
        done = 0
        for match in await store.unstarted_matches(self.pool, older_than_seconds):
            req = msgspec.msgpack.decode(match.request, type=OpenMatch)
            try:
                await self._start(match, req)
                done += 1
            except LobbyError as exc:
                _log.warning("match_not_started", match_id=match.match_id, code=exc.code)
        return done


class Sweeper(Periodic):
    """Every lobby copy looks for matches left half-started, now and then. Two copies
    finishing the same match is harmless: the game's creation is idempotent."""

    def __init__(self, matches: Matches, every_seconds: float) -> None:
        super().__init__("match_sweep", every_seconds,
                         lambda: matches.finish_unstarted(older_than_seconds=every_seconds))
