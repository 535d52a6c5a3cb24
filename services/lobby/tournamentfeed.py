"""Tournaments out to the sockets that follow them (``watch_tournament``).

Each gateway listens to ``tournament.evt.>`` once (a plain subscription on the
subjects the TOURNAMENT_EVENTS stream captures) and passes each event to the
sockets of this gateway that follow its tournament. A socket that starts to
follow gets the tournament's whole view first; the events carry the stream's
version, so a client drops those its view already holds. The listening starts
before the view is read, so nothing falls between the two. A round's deal seed
stays secret until the round is over: it is blanked in ``RoundPaired``.
"""

from __future__ import annotations

import contextlib
from typing import Any

import msgspec

from schemas import tournament_events as ev
from schemas import ws
from schemas.bus import EventEnvelope
from schemas.subjects import TOURNAMENT_STREAM_PREFIX, Names
from services.lobby.connections import Conn, Connections, encode
from services.lobby.errors import LobbyError
from services.lobby.gamebus import GameBus
from services.lobby.tournaments import Tournaments
from services.platform.events import tournament_registry

MAX_WATCHED = 8  # tournaments one socket may follow at once


class TournamentFeed:
    def __init__(self, tournaments: Tournaments, games: GameBus, names: Names,
                 conns: Connections) -> None:
        self.tournaments, self.games, self.names = tournaments, games, names
        self.conns = conns
        self.registry = tournament_registry()
        self._listening: Any = None

    async def start(self) -> None:
        self._listening = await self.games.listen(self.names.tournament_events_all,
                                                  EventEnvelope, self._on_event)

    async def stop(self) -> None:
        if self._listening is not None:
            with contextlib.suppress(Exception):
                await self._listening.unsubscribe()

    def handlers(self) -> dict[type[ws.ClientFrame], Any]:
        return {ws.WatchTournament: self.on_watch}

    async def on_watch(self, conn: Conn, frame: ws.WatchTournament) -> None:
        watched: set[str] = conn.tournaments
        if not frame.on:
            watched.discard(frame.tournament_id)
            return
        if frame.tournament_id not in watched and len(watched) >= MAX_WATCHED:
            raise LobbyError("too_many_tournaments",
                             f"a socket follows at most {MAX_WATCHED} tournaments")
        view = await self.tournaments.get(frame.tournament_id)
        watched.add(frame.tournament_id)
        conn.send(ws.TournamentFrame(tournament_id=frame.tournament_id, version=view.version,
                                     view=view))

    async def _on_event(self, env: EventEnvelope) -> None:
        tid = env.stream.removeprefix(TOURNAMENT_STREAM_PREFIX)
        watchers = [c for c in self.conns.all if tid in c.tournaments]
        if not watchers:
            return
        try:
            event = self.registry.decode(env.type, env.schema_version, env.body)
        except (LookupError, msgspec.DecodeError):
            return  # a newer service's event this gateway does not know yet
        frame = encode(ws.TournamentFrame(tournament_id=tid, version=env.version,
                                          event=ev.public(event)))  # type: ignore[arg-type]
        for c in watchers:
            c.send_raw(frame)
