"""Tournaments out to the sockets that follow them (``watch_tournament``).

Each gateway listens to ``tournament.evt.>`` once (a plain subscription on the
subjects the TOURNAMENT_EVENTS stream captures) and passes each event to the
sockets of this gateway that follow its tournament. A socket that starts to
follow gets the tournament's whole view first, then every later version once,
in order: docs/protocol.md tells a client to drop an event whose version its
view holds, so one sent ahead of an earlier one would cost it the earlier one.

The subscription does not hear a tournament's events in version order: a
round's results are appended in the game-end consumer's transaction and
published by the outbox relay a moment later, while the scheduler publishes the
next round's pairing straight after its own commit. So each followed tournament
has a ``Line`` here that puts them back in order: an event goes out only once
every version before it has, one that comes early waits, and the versions it
skipped are read from the tournament service's store (as a followed game's hub
fills a gap from its worker's, ``following.py``). The line starts before the
first watcher's view is read, so nothing falls between the two. A round's deal
seed stays secret until the round is over: it is blanked in ``RoundPaired``. In a
duplicate tournament a match's result goes out as its version alone (``ev.public``):
tables still playing the same deals would learn from it. Whether the tournament deals
duplicate is known from the first view on, so a line keeps the events it holds and
makes their frames as it sends them on, in order.
"""

from __future__ import annotations

import collections
import contextlib
from collections.abc import Callable
from typing import Any

import msgspec

from schemas import ws
from schemas.bus import EventEnvelope
from schemas.subjects import TOURNAMENT_STREAM_PREFIX, Names
from schemas.tournaments import events as ev
from services.lobby.base.errors import LobbyError
from services.lobby.clients.broadcasts import Broadcasts
from services.lobby.edge import gaps
from services.lobby.edge.connections import Conn, Connections, PerSocket, encode
from services.lobby.tournaments.relay import Tournaments
from services.platform import logs
from services.platform.events import tournament_registry

MAX_WATCHED = 8  # tournaments one socket may follow at once
RECENT = 256  # frames a line keeps for a watcher whose view is older than the line
FILL_BATCH = 500  # events read from the store at once to fill a gap
_log = logs.get("gateway")


class Unshown:
    """A version the tournament service's store read back without its event."""


UNSHOWN = Unshown()
Held = ev.Event | Unshown | None  # None: an event this gateway cannot decode


class Line:
    """One followed tournament on this gateway, its events put in version order
    (``order``: it starts where the first watcher's view is, the events heard before
    that wait; an event this gateway cannot decode is None, skipped, not waited for).

    ``recent`` holds the frames sent on, the newest at ``version`` (None for a skipped
    event); ``duplicate``: the tournament deals duplicate."""

    def __init__(self, order: Callable[[Line], gaps.InOrder[Held]]) -> None:
        self.recent: collections.deque[tuple[int, str | None]] = collections.deque(
            maxlen=RECENT)
        self.duplicate = False
        self.order = order(self)

    @property
    def version(self) -> int:
        """The last version sent on (-1 until the first watcher's view says where to start)."""
        return self.order.version

    def covers(self, since: int) -> bool:
        """Whether the frames after version ``since`` up to this line's are all at hand."""
        return since >= self.version or (bool(self.recent) and self.recent[0][0] <= since + 1)


class TournamentFeed:
    def __init__(self, tournaments: Tournaments, broadcasts: Broadcasts, names: Names,
                 conns: Connections) -> None:
        self.tournaments, self.broadcasts, self.names = tournaments, broadcasts, names
        self.registry = tournament_registry()
        self.lines: dict[str, Line] = {}
        # The tournaments each socket follows, each with the last version it was sent.
        self.watched: PerSocket[dict[str, int]] = PerSocket(conns, dict)
        self._listening: Any = None

    async def start(self) -> None:
        self._listening = await self.broadcasts.listen(self.names.tournament_events_all,
                                                       EventEnvelope, self._on_event)

    async def stop(self) -> None:
        if self._listening is not None:
            with contextlib.suppress(Exception):
                await self._listening.unsubscribe()
        for line in self.lines.values():
            line.order.stop()

    def handlers(self) -> dict[type[ws.ClientFrame], Any]:
        return {ws.WatchTournament: self.on_watch}

    async def on_watch(self, conn: Conn, frame: ws.WatchTournament) -> None:
        tid = frame.tournament_id
        watched = self.watched.of(conn)  # tournament -> last version sent
        if not frame.on:
            watched.pop(tid, None)
            return
        if tid not in watched and len(watched) >= MAX_WATCHED:
            raise LobbyError("too_many_tournaments",
                             f"a socket follows at most {MAX_WATCHED} tournaments")
        line = self.lines.get(tid)
        if line is None:
            line = self.lines[tid] = self._line(tid)
        try:
            for _ in range(3):  # again only if the line ran far ahead of the read
                view = await self.tournaments.get(tid)
                if line.covers(view.version):
                    break
        except BaseException:  # no such tournament, or the socket went: no line to keep
            if not line.order.started and self.lines.get(tid) is line:
                del self.lines[tid]  # another watch under way puts it back
            raise
        line = self.lines.setdefault(tid, line)
        conn.send(ws.TournamentFrame(tournament_id=tid, version=view.version, view=view))
        watched[tid] = view.version
        if not line.order.started:  # the first watcher: the line starts at its view
            line.duplicate = view.settings.get("format", {}).get("deals") == "duplicate"
            line.order.begin(view.version)
            return
        for version, data in line.recent:  # what the line sent on while the view was read
            if version > view.version and data is not None:
                conn.send_raw(data)
        watched[tid] = max(view.version, line.version)

    def _watchers(self, tid: str) -> list[tuple[Conn, dict[str, int]]]:
        return [(c, watched) for c, watched in self.watched.items() if tid in watched]

    async def _on_event(self, env: EventEnvelope) -> None:
        tid = env.stream.removeprefix(TOURNAMENT_STREAM_PREFIX)
        line = self.lines.get(tid)
        if line is None:
            return
        if line.order.started and not self._watchers(tid):  # nobody here follows it now
            del self.lines[tid]
            line.order.stop()
            return
        try:
            event: Held = self.registry.decode(env.type, env.schema_version, env.body)  # type: ignore[assignment]
        except (LookupError, msgspec.DecodeError):
            event = None  # a newer service's event this gateway does not know yet
        line.order.take(env.version, event)

    @staticmethod
    def _frame(tid: str, line: Line, version: int, event: Held) -> str | None:
        """The frame of ``event`` as anyone may see it (None: none, it is skipped)."""
        if event is None:
            return None
        if isinstance(event, ev.TournamentCreated | ev.SettingsChanged):
            line.duplicate = event.settings.format.deals == "duplicate"
        shown = None if isinstance(event, Unshown) else ev.public(event, line.duplicate)
        return encode(ws.TournamentFrame(tournament_id=tid, version=version,
                                         event=shown))  # type: ignore[arg-type]

    def _line(self, tid: str) -> Line:
        def unfilled(exc: BaseException) -> None:
            _log.warning("tournament_gap_unfilled", tournament_id=tid,
                         code=getattr(exc, "code", ""))

        def order(line: Line) -> gaps.InOrder[Held]:
            return gaps.InOrder(lambda event: self._send_on(tid, line, event),
                                lambda version: self._fetch(tid, line, version), LobbyError,
                                unfilled, start=None)
        return Line(order)

    def _send_on(self, tid: str, line: Line, event: Held) -> None:
        """The next event in order, to every watcher that lacks it."""
        version = line.version
        data = self._frame(tid, line, version, event)
        line.recent.append((version, data))
        for c, watched in self._watchers(tid):
            if watched.get(tid, version) < version:
                if data is not None:
                    c.send_raw(data)
                watched[tid] = version

    async def _fetch(self, tid: str, line: Line, version: int) -> None:
        """A gap: read the versions after ``version`` from the tournament service's store."""
        got = await self.tournaments.events(tid, version, FILL_BATCH)
        for recorded in got.events:
            line.order.take(recorded.version, recorded.event or UNSHOWN)
