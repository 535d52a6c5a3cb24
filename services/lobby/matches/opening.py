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

With a ready check the match is recorded without a table and its people get a
``match_offered`` note; the last confirmation (under the match's row lock, so
one confirmer only) writes the table and goes on to start the game. Until the
game worker has created it the match is ``starting``, never ``started``: only then
is its game id one a player can subscribe to. A decline or the deadline
(``Expiry``, on every copy) ends it ``not_ready``. The end of every match's start
is published once recorded (``Outcomes``); what a crash left unpublished the sweep
publishes.
"""

from __future__ import annotations

from dataclasses import replace as dc_replace
from typing import Any

import msgspec
from prometheus_client import Counter

from schemas.errors.codes import (
    MATCH_CLOSED,
    MATCH_NOT_FOUND,
    TABLE_STARTED,
)
from schemas.matches import MatchOpened, OpenMatch, game_of, table_of
from schemas.notes import MatchCancelled, MatchOffered
from services.lobby.base.errors import LobbyError
from services.lobby.base.rulesets import rules_of
from services.lobby.clients.broadcasts import Broadcasts
from services.lobby.clients.gameworkers import GameClient
from services.lobby.matches import store
from services.lobby.matches.outcomes import Outcomes
from services.lobby.matches.starting import GameStarts
from services.lobby.tables import store as tablestore
from services.lobby.tables.playing import Playing, in_game
from services.platform import logs, tracing

_log = logs.get("lobby")
NOT_READY = Counter("spades_ready_check_failures_total", "Ready checks that ended a match "
                    "unstarted, by origin and why (a seat declined, or the time lapsed)",
                    ["origin", "why"])
NOBODY = "00000000-0000-0000-0000-000000000000"  # the host of a table no person opened
MIN_READY_SECONDS = 5  # a shorter ready check cannot reach a person in time


class Matches:
    def __init__(self, pool: store.Pool, games: GameClient, broadcasts: Broadcasts,
                 outcomes: Outcomes) -> None:
        self.pool, self.games, self.outcomes = pool, games, outcomes
        self.broadcasts = broadcasts
        self.starts = GameStarts(pool, games, broadcasts, outcomes)
        self.playing = Playing(pool, games)

    async def open(self, req: OpenMatch, table: tablestore.TableRow | None = None) -> MatchOpened:
        """Open ``req`` (a person's open ``table`` when the origin is a table)."""
        if (req.origin == "table") != (table is not None):
            raise LobbyError("bad_origin", "a person's table starts with "
                                           "POST /v1/tables/{id}/start")
        if req.ready_seconds > 0 and (table is not None
                                      or req.ready_seconds < MIN_READY_SECONDS):
            raise LobbyError("bad_ready", f"a ready check lasts {MIN_READY_SECONDS} "
                                          "seconds or more, for matches no person's "
                                          "table started")
        # A check with no person seated (bots only) could only pass at once: the match
        # starts as one without, a transaction and a seat check fewer.
        check = req.ready_seconds > 0 and any(s.player_id for s in req.seats)
        preset, rules = rules_of(req.rules)
        names = await self.starts.check_seats(req)
        table_id, game_id = table_of(req.match_id), game_of(req.match_id)
        if table is not None:
            row: tablestore.TableRow | None = table.with_(
                seats=_seats(req, names), state="playing", game_id=game_id)
            table_id = table.table_id
        else:
            row = None if check else _table_row(req, names, preset, rules)
        asked = msgspec.msgpack.encode(req)
        if row is not None:
            await self.playing.free(names)
        try:
            match, fresh = await store.open_match(self.pool, store.MatchRow(
                match_id=req.match_id, origin=req.origin, origin_id=req.origin_id,
                rated=req.rated, table_id=table_id, game_id=game_id, request=asked,
                state="ready_check" if check else "starting", people=_people(req),
                players=tuple(s.player_id for s in req.seats if s.player_id),
                trace=tracing.traceparent()),
                row, table_exists=table is not None,
                ready_seconds=req.ready_seconds if check else 0)
        except store.TableNotOpen:
            raise LobbyError(TABLE_STARTED, "the table is no longer open") from None
        except tablestore.InGame as busy:
            raise in_game(f"{names[busy.player_id][0]} is still playing another game; "
                          "it ends first") from None
        if not fresh and match.request != asked:
            raise LobbyError("match_id_reused",
                             f"match {req.match_id} was opened with another request")
        if fresh and not check:
            await self.broadcasts.table_changed(table_id, game_id)
        if match.state == "ready_check":
            await self._offer(match, req)
            if not match.people:  # bots only, recorded before they skipped the check
                try:
                    match = await self._confirm(match, req, ())
                except _Repeated as repeated:  # a concurrent ask confirmed it
                    match = repeated.match
        if match.state == "failed":
            raise LobbyError("match_failed", f"match {req.match_id} could not start")
        if match.state == "starting":
            await self.starts.start(match, req)
            match = dc_replace(match, state="started")
        return _opened(match, duplicate=not fresh)

    async def ready(self, match_id: str, player_id: str) -> MatchOpened:
        """``player_id`` confirms their seats; the last confirmation starts the game. A
        repeat of a confirmation that counted is answered with where the match stands,
        also when it lands while the last one is starting the game."""
        match, req, seats = await self._mine(match_id, player_id)
        if _confirmed(match, seats):
            return _opened(match, duplicate=True)
        if match.state != "ready_check":
            raise _closed(match)
        await self.playing.refuse(player_id, here=match.table_id)  # its own game may be starting
        try:
            return _opened(await self._confirm(match, req, seats))
        except _Repeated as repeated:
            return _opened(repeated.match, duplicate=True)

    async def decline(self, match_id: str, player_id: str) -> MatchOpened:
        """``player_id`` says no: the match ends now, not started."""
        match, req, seats = await self._mine(match_id, player_id)
        if match.state == "not_ready" and set(seats) <= set(match.declined):
            return _opened(match, duplicate=True)
        try:
            match = await store.decline(self.pool, match_id, seats)
        except store.NotAwaiting as exc:
            raise _closed(exc.match) from None
        await self._not_ready(match, req)
        return _opened(match)

    async def status(self, match_id: str, player_id: str) -> MatchOpened:
        """Where a match the player sits in stands (a reload during a ready check)."""
        match, _, _ = await self._mine(match_id, player_id)
        return _opened(match, duplicate=True)

    async def offers(self, player_id: str) -> list[MatchOffered]:
        return await offers_to(self.pool, player_id)

    async def expire(self) -> int:
        """End the ready checks whose deadline passed; how many ended."""
        lapsed = await store.lapsed_checks(self.pool)
        for match in lapsed:
            await self._not_ready(match, msgspec.msgpack.decode(match.request, type=OpenMatch))
        return len(lapsed)

    async def _mine(self, match_id: str,
                    player_id: str) -> tuple[store.MatchRow, OpenMatch, tuple[int, ...]]:
        try:
            match = await store.match(self.pool, match_id)
        except store.NotFound:
            raise LobbyError(MATCH_NOT_FOUND, f"no match {match_id}") from None
        req = msgspec.msgpack.decode(match.request, type=OpenMatch)
        seats = tuple(i for i, s in enumerate(req.seats) if s.player_id == player_id)
        if not seats:
            raise LobbyError("not_in_match", "you have no seat in this match")
        return match, req, seats

    async def _confirm(self, match: store.MatchRow, req: OpenMatch,
                       seats: tuple[int, ...]) -> store.MatchRow:
        preset, rules = rules_of(req.rules)
        names = await self.starts.check_seats(req)
        row = _table_row(req, names, preset, rules)
        await self.playing.free(names)
        try:
            match, outcome = await store.confirm(self.pool, match.match_id, seats, row)
        except store.NotAwaiting as exc:
            if _confirmed(exc.match, seats):  # the last confirmation landed meanwhile
                raise _Repeated(exc.match) from None
            raise _closed(exc.match) from None
        except tablestore.InGame:
            raise in_game() from None
        if outcome == "lapsed":
            await self._not_ready(match, req)
        elif outcome == "withdrawn":  # one who had confirmed plays elsewhere now
            await self._offer(match, req)
        elif outcome == "complete":
            await self.broadcasts.table_changed(match.table_id, match.game_id)
            await self.starts.start(match, req)
            match = await store.match(self.pool, match.match_id)
        return match

    async def _offer(self, match: store.MatchRow, req: OpenMatch) -> None:
        """Ask the people who have not confirmed yet (again, on a repeated ask: the
        first ask's notes may have been lost with its sender)."""
        for seat, s in enumerate(req.seats):
            if s.player_id and seat not in match.ready:
                await self.broadcasts.note(s.player_id, MatchOffered(
                    match_id=match.match_id, origin=req.origin, origin_id=req.origin_id,
                    seat=seat, rated=req.rated, expires_at=match.ready_by_ms))

    async def _not_ready(self, match: store.MatchRow, req: OpenMatch) -> None:
        _log.info("match_not_ready", match_id=match.match_id, absent=match.absent,
                  declined=match.declined)
        NOT_READY.labels(req.origin, "declined" if match.declined else "lapsed").inc()
        for s in req.seats:
            if s.player_id:
                await self.broadcasts.note(s.player_id, MatchCancelled(
                    match_id=match.match_id, origin=req.origin, origin_id=req.origin_id,
                    absent=match.absent, declined=match.declined))
        await self.outcomes.publish(match)

    async def finish_unstarted(self, older_than_seconds: float) -> int:
        return await self.starts.finish_unstarted(older_than_seconds)


async def offers_to(pool: store.Pool, player_id: str) -> list[MatchOffered]:
    """The offers this player has not answered, as their notes said."""
    offers = []
    for m in await store.offers_of(pool, player_id):
        seat = m.people[m.players.index(player_id)]
        if seat not in m.ready:
            offers.append(MatchOffered(
                match_id=m.match_id, origin=m.origin,  # type: ignore[arg-type]
                origin_id=m.origin_id, rated=m.rated, expires_at=m.ready_by_ms, seat=seat))
    return offers


def _seats(req: OpenMatch, names: dict[str, tuple[str, bool]]) -> tuple[tablestore.Seat, ...]:
    return tuple(tablestore.Seat(bot=s.bot, name=f"Bot {i + 1}") if s.bot else
                 tablestore.Seat(player_id=s.player_id, name=names[s.player_id][0],
                            guest=not names[s.player_id][1])
                 for i, s in enumerate(req.seats))


def _table_row(req: OpenMatch, names: dict[str, tuple[str, bool]], preset: str,
               rules: dict[str, Any]) -> tablestore.TableRow:
    """The table of a match no person's table started: private, no room code."""
    table_id, game_id = table_of(req.match_id), game_of(req.match_id)
    host = next((s.player_id for s in req.seats if s.player_id), NOBODY)
    return tablestore.TableRow(table_id=table_id, host=host, private=True, code=None, rules=rules,
                          preset=preset, seats=_seats(req, names), state="playing",
                          game_id=game_id, banter=req.banter)


def _people(req: OpenMatch) -> tuple[int, ...]:
    return tuple(i for i, s in enumerate(req.seats) if s.player_id)


class _Repeated(Exception):
    """A confirmation found the match already confirmed by everyone (its seats too)."""

    def __init__(self, m: store.MatchRow) -> None:
        super().__init__(m.match_id)
        self.match = m


def _confirmed(m: store.MatchRow, seats: tuple[int, ...]) -> bool:
    """Whether ``seats`` confirmed a match that has gone on to start (or has started)."""
    return m.state in ("starting", "started") and set(seats) <= set(m.ready)


def _opened(m: store.MatchRow, duplicate: bool = False) -> MatchOpened:
    """The match as its people and callers see it: ``starting`` until its game exists,
    so an id they are told to subscribe to is always one they can subscribe to."""
    return MatchOpened(match_id=m.match_id, table_id=m.table_id, game_id=m.game_id,
                       rated=m.rated, duplicate=duplicate,
                       state=m.state,  # type: ignore[arg-type]
                       ready_by=m.ready_by_ms,
                       ready=tuple(sorted({*m.ready, *(i for i in range(4)
                                                      if i not in m.people)})),
                       absent=m.absent, declined=m.declined)


def _closed(m: store.MatchRow) -> LobbyError:
    return LobbyError(MATCH_CLOSED, f"match {m.match_id} is no longer waiting for "
                                      f"its players ({m.state})")
