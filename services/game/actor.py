"""One live game in a worker: the only writer of its stream (docs/architecture.md,
rule 9).

Everything that can change a game passes through one asyncio task, one item at
a time: a person's command from the gateway, a bot seat's move, a clock that
ran out. That is what makes a move sent at the instant its clock expires end
one way only: whichever the task takes first is stored, and the other is
decided against the state after it (``not_your_turn`` or ``stale_clock``).

The inbox is bounded and refuses (``busy``) rather than queueing without end:
a flooded game must not hold memory or delay everyone's answers. The state is
kept in memory; every append names the version it was decided on and the
ownership epoch, so a worker that lost the game (paused past its lease, cut
off) is refused by the store and stops at once.

When the moves nobody sends (a bot's, a clock's expiry) are due is ``duemoves``'
to say; the first answer to a repeated command id is ``answers``'.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import time
from dataclasses import dataclass, field
from typing import Protocol

import structlog
from msgspec.structs import replace

from engine.decide import step
from engine.errors import RuleError
from engine.state import OVER, GameState
from schemas import commands as cmd
from schemas import events as ev
from schemas.errors.codes import CONFLICT, NOT_ALLOWED, NOT_OWNER, UNAVAILABLE
from schemas.gamebus import ChatLine, GameReply
from services.game import banter, metrics
from services.game.answers import Answers, command_hash, outcome, reused
from services.game.clock import Clock
from services.game.duemoves import DueMoves
from services.game.settings import GameSettings
from services.game.shards import Games
from services.game.store import Refusal
from services.platform import logs, tracing
from services.platform.eventstore import AppendResult, ConcurrencyError
from services.platform.eventstore.groupcommit import GroupCommit
from services.platform.lease import FencedError

_log = logs.get("game")

# Commands only the platform itself sends: a gateway may not start a game through
# GameRequest (CreateGame does, with a fresh secret seed), deal cards into a seeded
# game, or say a clock ran out.
PLATFORM_ONLY = (cmd.StartGame, cmd.DealHand, cmd.ClockExpired)



class Host(Protocol):
    """What a game's task needs from the worker that runs it, and nothing more."""

    settings: GameSettings
    clock: Clock
    store: Games  # one database, or several (``shards``)
    appends: GroupCommit  # every game's appends, committed together

    async def rebuild(self, game_id: str) -> GameState: ...  # the state, from the events

    async def say(self, line: ChatLine) -> None: ...  # a bot's table talk

    def actor_done(self, actor: GameActor) -> None: ...  # the task ended


class Lost(Exception):
    """Another worker owns the game now: the store refused this one's epoch."""


@dataclass(slots=True)
class Item:
    command: cmd.Command
    command_id: str
    player_id: str
    future: asyncio.Future[GameReply]
    arrived: float = field(default_factory=time.perf_counter)
    trace: tracing.Context | None = None  # the request's span, when tracing is on


class GameWriter:
    """One game's state and the only writes to its stream: a command decided by the
    engine, appended under the worker's epoch (a stale epoch is ``Lost``), and what
    follows a commit (bots' table talk, the game's end). ``GameActor`` runs it."""

    def __init__(self, worker: Host, game_id: str, epoch: int, state: GameState,
                 banter_on: bool, refused: dict[str, Refusal], clock_floor: int) -> None:
        self.worker = worker
        self.game_id = game_id
        self.epoch = epoch
        self.state = state
        self.banter_on = banter_on
        self.answers = Answers(worker.store, game_id, refused, worker.settings.answers_kept)
        self.moves = DueMoves(game_id, state.players, worker.settings.bot_think_ms,
                              worker.clock.now_ms(), clock_floor)
        self.ended_at: float | None = time.monotonic() if state.phase == OVER else None

    @property
    def bot_mask(self) -> int:
        return self.moves.bot_mask(self.state)

    async def _apply(self, command: cmd.Command, command_id: str | None,
                     origin: str, digest: str | None = None) -> GameReply:
        before = self.state
        try:
            if tracing.on():
                with tracing.span("decide", attrs={"command": type(command).__name__}):
                    after, events = step(before, command)
            else:
                after, events = step(before, command)
        except RuleError as exc:
            if not command_id:
                return GameReply(ok=False, code=exc.code, message=exc.message)
            try:
                return await self.answers.refuse(command_id, exc, self.epoch, digest)
            except FencedError:
                raise self._fenced(before.version) from None
        if not events:
            return GameReply(ok=True, version=before.version)
        try:
            result = await self._commit(before.version, events, command_id, origin, digest)
        except FencedError:
            raise self._fenced(before.version) from None
        except ConcurrencyError as exc:
            # Only a writer outside the worker protocol can cause this: read the truth again.
            _log.error("version_conflict", expected=exc.expected, actual=exc.actual)
            self.state = await self.worker.rebuild(self.game_id)
            return GameReply(ok=False, code=CONFLICT,
                             message="the game moved on; send the command again")
        if result.duplicate:
            if result.command_hash not in (None, digest):
                return reused(command_id or "")
            return GameReply(ok=True, version=result.last_version,
                             first_version=result.first_version, duplicate=True)
        self.state = after
        self.moves.changed_ms = self.worker.clock.now_ms()
        await self._after(before, events, result.first_version)
        return GameReply(ok=True, version=result.last_version, first_version=result.first_version)

    async def _commit(self, version: int, events: list[ev.Event], command_id: str | None,
                      origin: str, digest: str | None) -> AppendResult:
        append = self.worker.appends.append(self.game_id, version, events, command_id,
                                            epoch=self.epoch, causation_id=origin,
                                            command_hash=digest)
        if not tracing.on():
            return await append
        with tracing.span("commit", attrs={"events": len(events)}):
            return await append

    def _fenced(self, version: int) -> Lost:
        """The store refused this worker's epoch: another one runs the game now."""
        _log.warning("fenced", epoch=self.epoch, version=version)
        metrics.LOST.labels("fenced").inc()
        return Lost(self.game_id)

    async def _after(self, before: GameState, events: list[ev.Event], first_version: int) -> None:
        if self.banter_on and self.bot_mask:
            found = banter.moments(before, events)
            if found:
                for line in banter.lines(self.game_id, first_version, found, self.bot_mask):
                    await self.worker.say(ChatLine(
                        game_id=self.game_id, seat=line.seat,
                        player_id=self.moves.player(self.state, line.seat),
                        text=line.text, bot=True, at=self.worker.clock.now_ms(),
                        name=f"Bot {line.seat + 1}"))  # as the lobby names its bots
        if self.state.phase == OVER and self.ended_at is None:
            self.ended_at = time.monotonic()
            await self.worker.store.mark_ended(self.game_id)
            _log.info("game_ended", version=self.state.version, winner=self.state.winner,
                      reason=self.state.end_reason, hands=self.state.hands_played)


class GameActor(GameWriter):
    """The game's one task: its inbox of commands, the moves that fall due (bots, clocks)
    and, once over, a linger for late repeats; nothing else writes the game."""

    def __init__(self, worker: Host, game_id: str, epoch: int, state: GameState,
                 banter_on: bool, refused: dict[str, Refusal], clock_floor: int = 0) -> None:
        super().__init__(worker, game_id, epoch, state, banter_on, refused, clock_floor)
        self.inbox: collections.deque[Item] = collections.deque()
        self.wake = asyncio.Event()
        self.closing = False
        self.lost = False
        self.task: asyncio.Task[None] | None = None

    # --- the outside ---------------------------------------------------------------

    def start(self) -> None:
        # Not in the trace of the request that started it: the bots' and the clock's
        # moves are no one's command (a person's carries its own, ``Item.trace``).
        self.task = asyncio.create_task(self._run(), name=f"game:{self.game_id}",
                                        context=tracing.detached())

    def submit(self, item: Item) -> bool:
        """Queue a command; False when the inbox is full (the caller answers ``busy``)."""
        if self.closing or len(self.inbox) >= self.worker.settings.inbox_size:
            return False
        self.inbox.append(item)
        self.wake.set()
        return True

    def close(self) -> None:
        """Finish the item in hand, answer the queued ones ``not_owner``, stop."""
        self.closing = True
        self.wake.set()

    # --- the task ------------------------------------------------------------------

    async def _run(self) -> None:
        structlog.contextvars.bind_contextvars(game_id=self.game_id)
        try:
            while not self.closing:
                if self.inbox:
                    await self._handle(self.inbox.popleft())
                    continue
                now = self.worker.clock.now_ms()
                due = self.moves.due(self.state)
                if due is not None and due <= now:
                    try:
                        await self._internal(now)
                    except Lost:
                        raise
                    except Exception as exc:  # Postgres away, say: the move is due again
                        _log.warning("internal_move_failed", error=repr(exc))
                        await asyncio.sleep(self.worker.settings.retry_seconds)
                    continue
                if self.ended_at is not None:
                    left = self.ended_at + self.worker.settings.linger_seconds - time.monotonic()
                    if left <= 0:
                        break
                    timeout: float | None = left
                else:
                    timeout = self.worker.clock.timeout(due)
                self.wake.clear()
                if self.inbox or self.closing:
                    continue
                # asyncio.timeout, not wait_for: no task of its own for every wait.
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(timeout):
                        await self.wake.wait()
        except Lost:
            self.lost = True
        except Exception:
            _log.exception("game_task_failed")
        finally:
            self.closing = True
            while self.inbox:
                item = self.inbox.popleft()
                _answer(item, GameReply(ok=False, code=NOT_OWNER,
                                             message="this worker no longer runs the game; "
                                                     "send it again"), "not_owner")
            self.worker.actor_done(self)

    async def _internal(self, now: int) -> None:
        s = self.state
        started = time.perf_counter()
        move = await self.moves.next(s, now)
        if move is None:
            return
        origin, seat, command = move
        reply = await self._apply(command, None, origin=f"{origin}:{seat}")
        _count(origin, type(command).__name__, reply, started)
        if self.state.version == s.version:
            # Refused, or accepted without a change: asking again would do the same.
            if not reply.ok:
                _log.warning("internal_move_refused", origin=origin, seat=seat, code=reply.code)
            self.moves.block(origin, s.version)

    async def _handle(self, item: Item) -> None:
        if item.trace is None:
            await self._handle_item(item)
            return
        with tracing.span("apply", parent=item.trace, attrs={
                "game.id": self.game_id, "command.id": item.command_id,
                "player.id": item.player_id}):
            await self._handle_item(item)

    async def _handle_item(self, item: Item) -> None:
        # Reset by tokens, not ``bound_contextvars`` (which reads every bound variable
        # first): this runs for every command.
        tokens = structlog.contextvars.bind_contextvars(command_id=item.command_id,
                                                        player_id=item.player_id)
        try:
            digest = command_hash(item.player_id, item.command)
            earlier = self.answers.earlier(item.command_id, digest)
            if earlier is not None:
                _answer(item, earlier, outcome(earlier))
                return
            if isinstance(item.command, PLATFORM_ONLY):
                _answer(item, GameReply(ok=False, code=NOT_ALLOWED, message=(
                    f"{type(item.command).__name__} is sent by the platform only")), "refused")
                return
            command = replace(item.command, at=self.worker.clock.now_ms())
            try:
                reply = await self._apply(command, item.command_id, origin="player",
                                          digest=digest)
            except Lost:
                _answer(item, GameReply(ok=False, code=NOT_OWNER, message=(
                    "another worker runs this game now; send it again")), "not_owner")
                raise
            except Exception as exc:
                _log.exception("command_failed")
                reply = GameReply(ok=False, code=UNAVAILABLE,
                                  message=f"could not apply the command: {type(exc).__name__}")
            self.answers.remember(item.command_id, digest, reply)
            _answer(item, reply, outcome(reply))
        finally:
            structlog.contextvars.reset_contextvars(**tokens)


def _answer(item: Item, reply: GameReply, result: str) -> None:
    kind = type(item.command).__name__
    metrics.commands("player", result, kind).inc()
    metrics.latency("player", kind).observe(time.perf_counter() - item.arrived)
    if reply.ok:
        _log.debug("command_applied", version=reply.version, duplicate=reply.duplicate)
    else:
        _log.info("command_refused", code=reply.code, duplicate=reply.duplicate)
    if not item.future.done():
        item.future.set_result(reply)


def _count(origin: str, kind: str, reply: GameReply, started: float) -> None:
    metrics.commands(origin, outcome(reply), kind).inc()
    metrics.latency(origin, kind).observe(time.perf_counter() - started)
