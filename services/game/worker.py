"""The game workers' service layer: create games, route commands to their game's task,
keep the leases, adopt the games of workers that died, hand games over on shutdown.

Games are spread over workers by lease, one game at a time. Whichever worker
takes a ``CreateGame`` (any of them: they share a queue group) writes the first
events and owns the game; only the owner listens on the game's command
subject. Every worker renews the leases of its games in one statement per
heartbeat and claims, in another, live games whose lease ran out: a worker
killed with SIGKILL loses its games to the others within a lease and a
heartbeat. Claiming bumps the game's epoch, and every append carries the
epoch, so a worker that was only paused (SIGSTOP past its lease) has its next
append refused and drops the game. On SIGTERM a worker stops listening,
finishes the command in hand, lets its leases lapse and says so on the bus, so
the others adopt at once.

Why leases per game rather than per partition: the gateway contract addresses
a game by its own subject (``game.cmd.<game_id>``), so the owner of a game is
simply the one worker subscribed to it, and a crashed worker's games spread
over all the survivors, a game at a time, instead of moving as one block.

A repeated command id gets the first answer. Accepted commands: the event
store records each command id with its versions and returns them again
instead of appending. Refused commands: recomputing is not enough (a move
refused as ``not_your_turn`` may be legal by the time it is repeated, and
would then be applied), so a refusal by the rules is stored in
``refused_commands`` and loaded with the game on adoption; the answer to a
repeat is the first refusal. Platform answers (``busy``, ``not_owner``,
``conflict``, ``unavailable``) applied nothing and are not remembered: those
are the ones to retry, with the same command id.

Transport-free: the NATS side calls these methods with ``schemas`` Structs and
hears about ownership changes through ``Outlet``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
from typing import Protocol

import structlog

from engine.bots import LEVELS
from engine.decide import step
from engine.errors import RuleError
from engine.evolve import fold
from engine.state import GameState
from schemas import commands as cmd
from schemas.errors.codes import BAD_REQUEST, BUSY, GAME_EXISTS, NOT_OWNER
from schemas.events import Event
from schemas.gamebus import ChatLine, CreateGame, EventsReply, EventsSince, GameReply, GameRequest
from services.game import metrics
from services.game.actor import GameActor, Item
from services.game.clock import Clock
from services.game.heartbeat import Heartbeat
from services.game.settings import GameSettings
from services.game.shards import Games
from services.game.store import GameExists
from services.platform import logs, tracing
from services.platform.eventstore.groupcommit import GroupCommit
from services.platform.lease import LeaseHeld

_log = logs.get("game")

GAME_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
MAX_EVENTS_SINCE = 1000


class Outlet(Protocol):
    """What the worker needs from the bus, without knowing it is a bus."""

    async def owned(self, game_id: str) -> None: ...  # start listening for its commands

    async def released(self, game_id: str) -> None: ...  # stop listening

    async def say(self, line: ChatLine) -> None: ...  # table talk out to the gateways

    async def handed_over(self) -> None: ...  # tell the other workers to adopt now


class GameWorker:
    def __init__(self, store: Games, settings: GameSettings, clock: Clock, owner: str,
                 outlet: Outlet) -> None:
        self.store = store
        self.settings = settings
        self.clock = clock
        self.owner = owner
        self.outlet = outlet
        self.actors: dict[str, GameActor] = {}
        self.appends = GroupCommit(store.events, window=settings.group_commit_ms / 1000,
                                   most=settings.group_commit_most)
        self._stopping = False
        self.heartbeat = Heartbeat(self)
        clock.on_change(self._wake_all)

    # --- lifecycle -----------------------------------------------------------------

    async def start(self) -> None:
        await self.heartbeat.start()

    @property
    def running(self) -> bool:
        return self.heartbeat.running

    async def stop(self) -> None:
        """Hand every game over now: stop listening, finish the command in hand,
        let the leases lapse, tell the other workers."""
        self._stopping = True
        await self.heartbeat.stop()
        actors = list(self.actors.values())
        for a in actors:
            with contextlib.suppress(Exception):
                await self.outlet.released(a.game_id)
            a.close()
        tasks = [a.task for a in actors if a.task is not None]
        if tasks:
            await asyncio.wait(tasks, timeout=self.settings.handover_seconds)
        try:
            await self.store.release(self.owner, [a.game_id for a in actors])
            await self.outlet.handed_over()
        except Exception as exc:
            _log.warning("handover_failed", error=repr(exc))
        _log.info("handed_over", games=len(actors))

    def poke(self) -> None:
        """Another worker handed games over: look for orphans now."""
        self.heartbeat.poke()

    # --- requests ------------------------------------------------------------------

    async def create(self, req: CreateGame) -> GameReply:
        log = _log.bind(game_id=req.game_id, command_id=req.command_id)
        problem = _check_create(req)
        if problem:
            return GameReply(ok=False, code=BAD_REQUEST, message=problem)
        start = _start_command(req, self.clock.now_ms())
        try:
            state, events = step(GameState(), start)
        except RuleError as exc:
            return GameReply(ok=False, code=exc.code, message=exc.message)
        try:
            result, epoch = await self.store.create(
                req.game_id, req.table_id, req.banter, self.owner, self.settings.lease_seconds,
                events, req.command_id)
        except GameExists:
            return GameReply(ok=False, code=GAME_EXISTS,
                             message=f"game {req.game_id} was created by another command")
        except LeaseHeld:
            return GameReply(ok=False, code=BUSY, message="the game is being created; "
                                                          "send it again")
        if result.duplicate:
            return GameReply(ok=True, version=result.last_version,
                             first_version=result.first_version, duplicate=True)
        actor = GameActor(self, req.game_id, epoch, state, req.banter, {})
        await self.run(actor)
        log.info("game_created", version=state.version, bots=actor.moves.born_bots,
                 rated=req.rated, preset=req.rules.preset)
        return GameReply(ok=True, version=result.last_version, first_version=result.first_version)

    async def command(self, req: GameRequest) -> GameReply:
        actor = self.actors.get(req.game_id)
        if actor is None or actor.closing:
            return GameReply(ok=False, code=NOT_OWNER,
                             message="this worker does not run the game; send it again")
        future: asyncio.Future[GameReply] = asyncio.get_running_loop().create_future()
        item = Item(req.command, req.command_id, req.player_id, future, trace=tracing.current())
        if not actor.submit(item):
            metrics.commands("player", BUSY, type(req.command).__name__).inc()
            return GameReply(ok=False, code=BUSY,
                             message="the game has too many commands waiting; send it again")
        return await future

    async def events_since(self, req: EventsSince) -> EventsReply:
        limit = max(1, min(req.limit, MAX_EVENTS_SINCE))
        first = req.version + 1
        events = await self.store.events.published(req.game_id, first, first + limit - 1)
        if 0 < len(events) < limit:  # the stream ends with them: its version is theirs
            return EventsReply(events=events, version=events[-1].version)
        return EventsReply(events=events, version=await self.store.events.version(req.game_id))

    # --- owning games --------------------------------------------------------------

    async def rebuild(self, game_id: str) -> GameState:
        events: list[Event] = [r.event for r in await self.store.read(game_id)]  # type: ignore[misc]
        return fold(events)

    async def run(self, actor: GameActor) -> None:
        self.actors[actor.game_id] = actor
        metrics.LIVE_GAMES.set(len(self.actors))
        actor.start()
        await self.outlet.owned(actor.game_id)

    def actor_done(self, actor: GameActor) -> None:
        """The game's task ended (finished and lingered, lost, or handed over)."""
        if self.actors.get(actor.game_id) is actor:
            del self.actors[actor.game_id]
            metrics.LIVE_GAMES.set(len(self.actors))
            if not self._stopping:
                asyncio.get_running_loop().create_task(self._let_go(actor))

    async def _let_go(self, actor: GameActor) -> None:
        with contextlib.suppress(Exception):
            await self.outlet.released(actor.game_id)
        if actor.lost:
            structlog.get_logger("game").info("game_dropped", game_id=actor.game_id)

    async def say(self, line: ChatLine) -> None:
        metrics.BOT_LINES.inc()
        try:
            await self.outlet.say(line)
        except Exception as exc:  # table talk is best effort; the game goes on
            _log.warning("chat_failed", game_id=line.game_id, error=repr(exc))

    def _wake_all(self) -> None:
        for actor in self.actors.values():
            actor.wake.set()


def _start_command(req: CreateGame, now: int) -> cmd.StartGame:
    """The game's first command: each bot seat named by its level, and the deal's seed."""
    players = tuple(
        f"bot:{level}" if level and not p.startswith("bot:") else p
        for p, level in zip(req.players, req.bot_levels, strict=True))
    # Secret until GameEnded reveals it; never logged. A supplied seed (a duplicate
    # round's deals) is sealed: the game never reveals it, its supplier does.
    seed = req.deal_seed or os.urandom(32).hex()
    return cmd.StartGame(rules=req.rules, players=players,  # type: ignore[arg-type]
                         seed=seed, rated=req.rated, sealed=bool(req.deal_seed), at=now)


def _check_create(req: CreateGame) -> str:
    if not GAME_ID.match(req.game_id):
        return "a game id is 1 to 64 letters, digits, '-' or '_'"
    if not req.command_id:
        return "a command id is required"
    for seat, (player, level) in enumerate(zip(req.players, req.bot_levels, strict=True)):
        lvl = player[4:] if player.startswith("bot:") else level
        if (player.startswith("bot:") or level) and lvl not in LEVELS:
            return f"seat {seat}: unknown bot level {lvl!r}; known: {', '.join(LEVELS)}"
        if not player and not level:
            return f"seat {seat} has neither a player nor a bot"
    return ""
