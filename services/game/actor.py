"""One live game in a worker: the only writer of its stream (DESIGN rule 9).

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
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import hashlib
import time
import zlib
from dataclasses import dataclass, field
from typing import Protocol

import msgspec
import structlog
from msgspec.structs import replace

from engine import bots
from engine.decide import step
from engine.errors import RuleError
from engine.state import OVER, GameState, born_bots, seats_in
from schemas import commands as cmd
from schemas import events as ev
from schemas.codes import (
    COMMAND_ID_REUSED,
    CONFLICT,
    NOT_ALLOWED,
    NOT_OWNER,
    RETRYABLE,
    UNAVAILABLE,
)
from schemas.play import ChatLine, GameReply
from services.game import banter, metrics
from services.game.clock import Clock
from services.game.settings import GameSettings
from services.game.shards import Games
from services.game.store import Refusal
from services.platform import logs
from services.platform.eventstore import ConcurrencyError
from services.platform.groupcommit import GroupCommit
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


_hash_encoder = msgspec.msgpack.Encoder(order="deterministic")


def command_hash(player_id: str, command: cmd.Command) -> str:
    """What a command id stands for: who sent which command (its time left out, as the
    worker sets that itself)."""
    body = _hash_encoder.encode((player_id, replace(command, at=0)))
    return hashlib.blake2b(body, digest_size=16).hexdigest()


def _reused(command_id: str) -> GameReply:
    return GameReply(ok=False, code=COMMAND_ID_REUSED, message=(
        f"command id {command_id!r} was already used for another command; "
        "send a new id for a new command"))


class Lost(Exception):
    """Another worker owns the game now: the store refused this one's epoch."""


@dataclass(slots=True)
class Item:
    command: cmd.Command
    command_id: str
    player_id: str
    future: asyncio.Future[GameReply]
    arrived: float = field(default_factory=time.perf_counter)


def bot_seats(players: tuple[str, ...]) -> tuple[int, dict[int, str]]:
    """Seats a bot plays from the start (``bot:<level>``) and their levels."""
    mask = born_bots(players)
    return mask, {seat: players[seat][4:] or "basic" for seat in seats_in(mask)}


class GameActor:
    def __init__(self, worker: Host, game_id: str, epoch: int, state: GameState,
                 banter_on: bool, refused: dict[str, Refusal], clock_floor: int = 0) -> None:
        self.worker = worker
        self.game_id = game_id
        self.epoch = epoch
        self.state = state
        self.banter_on = banter_on
        self.refused = refused
        self.born_bots, self.levels = bot_seats(state.players)
        self.inbox: collections.deque[Item] = collections.deque()
        # command id -> (its command's hash, the first answer)
        self.answers: collections.OrderedDict[str, tuple[str, GameReply]] = \
            collections.OrderedDict()
        self.wake = asyncio.Event()
        self.changed_ms = worker.clock.now_ms()
        # No person's clock runs out before this (an adopted game's window, see ``_deadline``).
        self.clock_floor = clock_floor
        # Internal moves that failed at this version: not again until the state changes.
        self.bot_blocked = -1
        self.clock_blocked = -1
        self.closing = False
        self.lost = False
        self.ended_at: float | None = time.monotonic() if state.phase == OVER else None
        self.task: asyncio.Task[None] | None = None

    # --- the outside ---------------------------------------------------------------

    def start(self) -> None:
        self.task = asyncio.create_task(self._run(), name=f"game:{self.game_id}")

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

    @property
    def bot_mask(self) -> int:
        return self.born_bots | self.state.bots

    # --- the task ------------------------------------------------------------------

    async def _run(self) -> None:
        structlog.contextvars.bind_contextvars(game_id=self.game_id)
        try:
            while not self.closing:
                if self.inbox:
                    await self._handle(self.inbox.popleft())
                    continue
                now = self.worker.clock.now_ms()
                due = self._due()
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
                self._answer(item, GameReply(ok=False, code=NOT_OWNER,
                                             message="this worker no longer runs the game; "
                                                     "send it again"), "not_owner")
            self.worker.actor_done(self)

    def _due(self) -> int | None:
        """When the next move is due that nobody sends: a bot's, or a clock's expiry."""
        s = self.state
        if s.phase == OVER or not s.waiting:
            return None
        bot = self._bot_turn()
        due = bot[0] if bot else None
        if self.clock_blocked == s.version:
            return due
        for seat in seats_in(s.waiting):
            d = self._deadline(seat)
            if d and (due is None or d < due):
                due = d
        return due

    def _bot_turn(self) -> tuple[int, int] | None:
        """When a waiting bot seat moves, and which: once it has thought, or when its clock
        runs out if that comes first. A bot makes its own move at its deadline rather than
        let the clock's expiry decide for it, so a clock shorter than the thinking time (or
        a failover longer than the clock) never turns into a timeout."""
        s = self.state
        waiting = s.waiting & self.bot_mask
        if not waiting or self.bot_blocked == s.version:
            return None
        thought = self.changed_ms + self.worker.settings.bot_think_ms
        return min((min(thought, s.deadlines[seat] or thought), seat)
                   for seat in seats_in(waiting))

    def _deadline(self, seat: int) -> int:
        """When the clock's expiry is sent for ``seat`` (0: it has no clock running): its
        recorded deadline, but never before ``clock_floor``. A worker that adopts a game
        sets that floor a window after the adoption (``adopt_grace_ms``), so a clock that
        ran out while no worker owned the game (and nobody could move) restarts instead of
        timing the seat out at once. The floor moves only the worker's sending; the
        expiry's time is recorded as always, so the events stay the whole truth."""
        d = self.state.deadlines[seat]
        return max(d, self.clock_floor) if d else 0

    async def _internal(self, now: int) -> None:
        s = self.state
        started = time.perf_counter()
        bot = self._bot_turn()
        if bot is not None and now >= bot[0]:
            seat = bot[1]
            origin = "bot"
            level = self.levels.get(seat, "basic")
            seed = zlib.crc32(f"{self.game_id}:{s.version}".encode())
            try:
                if level == "basic":  # tens of microseconds: right here
                    command = bots.choose(s, seat, level, seed=seed, at=now)
                else:  # a search of milliseconds: off the loop, so other games keep moving
                    command = await asyncio.to_thread(bots.choose, s, seat, level, seed=seed,
                                                      at=now)
            except (bots.NothingToDo, ValueError) as exc:
                _log.warning("bot_has_no_move", seat=seat, error=str(exc))
                self.bot_blocked = s.version
                return
        else:
            expired = [seat for seat in seats_in(s.waiting)
                       if 0 < self._deadline(seat) <= now]
            if not expired:
                return
            origin, seat = "clock", expired[0]
            command = bots.timeout_command(s, seat, at=now)  # the move rides in the command
        reply = await self._apply(command, None, origin=f"{origin}:{seat}")
        self._count(origin, reply, started)
        if self.state.version == s.version:
            # Refused, or accepted without a change: asking again would do the same.
            if not reply.ok:
                _log.warning("internal_move_refused", origin=origin, seat=seat, code=reply.code)
            if origin == "bot":
                self.bot_blocked = s.version
            else:
                self.clock_blocked = s.version

    async def _handle(self, item: Item) -> None:
        # Reset by tokens, not ``bound_contextvars`` (which reads every bound variable
        # first): this runs for every command.
        tokens = structlog.contextvars.bind_contextvars(command_id=item.command_id,
                                                        player_id=item.player_id)
        try:
            digest = command_hash(item.player_id, item.command)
            first = self.answers.get(item.command_id)
            if first is not None:
                if first[0] != digest:
                    self._answer(item, _reused(item.command_id), "refused")
                else:
                    self._answer(item, replace(first[1], duplicate=True), "duplicate")
                return
            refused = self.refused.get(item.command_id)
            if refused is not None:
                if refused.command_hash not in (None, digest):
                    self._answer(item, _reused(item.command_id), "refused")
                else:
                    self._answer(item, GameReply(ok=False, code=refused.code,
                                                 message=refused.message, duplicate=True),
                                 "duplicate")
                return
            if isinstance(item.command, PLATFORM_ONLY):
                self._answer(item, GameReply(ok=False, code=NOT_ALLOWED, message=(
                    f"{type(item.command).__name__} is sent by the platform only")), "refused")
                return
            command = replace(item.command, at=self.worker.clock.now_ms())
            try:
                reply = await self._apply(command, item.command_id, origin="player",
                                          digest=digest)
            except Lost:
                self._answer(item, GameReply(ok=False, code=NOT_OWNER, message=(
                    "another worker runs this game now; send it again")), "not_owner")
                raise
            except Exception as exc:
                _log.exception("command_failed")
                reply = GameReply(ok=False, code=UNAVAILABLE,
                                  message=f"could not apply the command: {type(exc).__name__}")
            self._remember(item.command_id, digest, reply)
            self._answer(item, reply, _result(reply))
        finally:
            structlog.contextvars.reset_contextvars(**tokens)

    def _remember(self, command_id: str, digest: str, reply: GameReply) -> None:
        if reply.ok or reply.code not in RETRYABLE | {COMMAND_ID_REUSED}:
            self.answers[command_id] = digest, reply
            if len(self.answers) > self.worker.settings.answers_kept:
                self.answers.popitem(last=False)

    def _answer(self, item: Item, reply: GameReply, result: str) -> None:
        metrics.COMMANDS.labels("player", result).inc()
        metrics.LATENCY.labels("player").observe(time.perf_counter() - item.arrived)
        if reply.ok:
            _log.debug("command_applied", version=reply.version, duplicate=reply.duplicate)
        else:
            _log.info("command_refused", code=reply.code, duplicate=reply.duplicate)
        if not item.future.done():
            item.future.set_result(reply)

    def _count(self, origin: str, reply: GameReply, started: float) -> None:
        metrics.COMMANDS.labels(origin, _result(reply)).inc()
        metrics.LATENCY.labels(origin).observe(time.perf_counter() - started)

    # --- deciding and storing ------------------------------------------------------

    async def _apply(self, command: cmd.Command, command_id: str | None,
                     origin: str, digest: str | None = None) -> GameReply:
        before = self.state
        try:
            after, events = step(before, command)
        except RuleError as exc:
            return await self._refuse(command_id, exc, digest)
        if not events:
            return GameReply(ok=True, version=before.version)
        try:
            result = await self.worker.appends.append(self.game_id, before.version, events,
                                                      command_id, epoch=self.epoch,
                                                      causation_id=origin, command_hash=digest)
        except FencedError:
            _log.warning("fenced", epoch=self.epoch, version=before.version)
            metrics.LOST.labels("fenced").inc()
            raise Lost(self.game_id) from None
        except ConcurrencyError as exc:
            # Only a writer outside the worker protocol can cause this: read the truth again.
            _log.error("version_conflict", expected=exc.expected, actual=exc.actual)
            await self._reload()
            return GameReply(ok=False, code=CONFLICT,
                             message="the game moved on; send the command again")
        if result.duplicate:
            if result.command_hash not in (None, digest):
                return _reused(command_id or "")
            return GameReply(ok=True, version=result.last_version,
                             first_version=result.first_version, duplicate=True)
        self.state = after
        self.changed_ms = self.worker.clock.now_ms()
        await self._after(before, events, result.first_version)
        return GameReply(ok=True, version=result.last_version, first_version=result.first_version)

    async def _refuse(self, command_id: str | None, exc: RuleError,
                      digest: str | None) -> GameReply:
        if command_id:
            first = await self.worker.store.command_result(self.game_id, command_id)
            if first is not None:  # accepted before this worker had the game
                if first.command_hash not in (None, digest):
                    return _reused(command_id)
                return GameReply(ok=True, version=first.last_version,
                                 first_version=first.first_version, duplicate=True)
            try:
                refusal = await self.worker.store.refuse(self.game_id, command_id, exc.code,
                                                         exc.message, self.epoch, digest)
            except FencedError:
                _log.warning("fenced", epoch=self.epoch, version=self.state.version)
                metrics.LOST.labels("fenced").inc()
                raise Lost(self.game_id) from None
            self.refused[command_id] = refusal
            if refusal.command_hash not in (None, digest):  # refused before, for another
                return _reused(command_id)
            return GameReply(ok=False, code=refusal.code, message=refusal.message)
        return GameReply(ok=False, code=exc.code, message=exc.message)

    async def _reload(self) -> None:
        self.state = await self.worker.rebuild(self.game_id)

    async def _after(self, before: GameState, events: list[ev.Event], first_version: int) -> None:
        if self.banter_on and self.bot_mask:
            found = banter.moments(before, events)
            if found:
                for line in banter.lines(self.game_id, first_version, found, self.bot_mask):
                    await self.worker.say(ChatLine(
                        game_id=self.game_id, seat=line.seat, player_id=self._player(line.seat),
                        text=line.text, bot=True, at=self.worker.clock.now_ms(),
                        name=f"Bot {line.seat + 1}"))  # as the lobby names its bots
        if self.state.phase == OVER and self.ended_at is None:
            self.ended_at = time.monotonic()
            await self.worker.store.mark_ended(self.game_id)
            _log.info("game_ended", version=self.state.version, winner=self.state.winner,
                      reason=self.state.end_reason, hands=self.state.hands_played)

    def _player(self, seat: int) -> str:
        player = self.state.players[seat]
        return player if player.startswith("bot:") else f"bot:{self.levels.get(seat, 'basic')}"


def _result(reply: GameReply) -> str:
    if reply.duplicate:
        return "duplicate"
    if reply.ok:
        return "ok"
    return reply.code if reply.code in RETRYABLE else "refused"
