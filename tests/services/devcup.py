"""A four-team cup on a running `spades dev`, through its public API only: an organizer
and eight registered players who press Ready when a match is offered and play each game
at a person's pace (so that a round is in play long enough to lose a server under it),
and the checks that the cup's results and standings are what its events say."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from typing import Any

from schemas.tournaments import events as ev
from services.platform.db import create_pool
from services.platform.eventstore import EventStore
from services.tournaments.decide import standings_of
from services.tournaments.reads import stale_projections
from services.tournaments.store import TournamentStore, registry
from tests.e2e.players import Seat
from tests.e2e.test_tournament_run import FAST, attend, dismiss, four_team_cup
from tests.services.lobby.harness import Player
from tests.services.lobby.test_tournaments import registered, role, signed_in_again
from tests.waiting import until

# Between two moves of a person: a game of one hand lasts some seconds, not a blink.
PACE = 0.2


async def play_seat(p: Player, ws_url: str, game_id: str, seats: list[Seat] | None = None,
                    pace: Callable[[], float] = lambda: 0.0) -> Seat:
    """Play ``p``'s seat to the game's end: each turn's first legal move after a pause of
    ``pace()``; a move refused (``unavailable`` while the database's server is lost) is
    made again. The seat is put in ``seats`` as soon as it is taken."""
    seat = Seat(p, await p.socket(ws_url), game_id)
    if seats is not None:
        seats.append(seat)
    try:
        await seat.subscribe()
        while seat.ended is None:
            if seat.next_move() is not None and pace():
                await asyncio.sleep(pace())
            await seat.act()
            seat.absorb(await seat.sock.recv(60))
    finally:
        await seat.sock.close()
    return seat


class Cup:
    """Single elimination of four teams, starting ``starts_in`` seconds after ``open``."""

    def __init__(self, base: str, database_url: str) -> None:
        self.base, self.database_url = base, database_url
        self.ws_url = base.replace("http", "ws", 1) + "/v1/ws"
        self.seats: list[Seat] = []
        self.players: list[Player] = []
        self.attending: list[asyncio.Task[None]] = []
        self.tid = ""
        self.pace = PACE  # 0 once nothing more need happen while a round is in play

    async def open(self, starts_in: float = 5.0) -> str:
        who = await registered(self.base, "org")
        done = await asyncio.to_thread(role, self.database_url, "organizer", "grant", who.name)
        assert done.returncode == 0, done.stderr
        self.org = await signed_in_again(who)
        self.players = [await registered(self.base) for _ in range(8)]
        self.attending = [asyncio.create_task(attend(p, self, playing=self._play))
                          for p in self.players]
        self.tid = await four_team_cup(self.org, self.players, FAST, int(starts_in * 1000))
        return self.tid

    async def _play(self, p: Player, game_id: str) -> Seat:
        return await play_seat(p, self.ws_url, game_id, self.seats, lambda: self.pace)

    async def in_play(self, moves: int) -> bool:
        """Both games of the first round running, each seat past ``moves`` events."""
        first = [s for s in self.seats if s.ended is None]
        return len(first) == 8 and all(s.version >= moves for s in first)

    async def view(self) -> dict[str, Any]:
        return await self.org.ok("GET", f"/v1/tournaments/{self.tid}")

    async def finished(self, timeout: float = 120) -> dict[str, Any]:
        async def over() -> dict[str, Any] | None:
            v = await self.view()
            return v if v["summary"]["status"] == "finished" else None

        return await until(over, timeout=timeout, every=0.3)

    async def recounted(self, database_url: str) -> None:
        """Each match's result recorded once, and the standings shown (and every
        projection) equal to a recount from the tournament's events."""
        pool = await create_pool(database_url, "tournaments")
        try:
            store = TournamentStore(pool, EventStore(pool, registry()))
            events = [r.event for r in await store.events.read(f"tournament-{self.tid}")]
            state = await store.load(self.tid)
            assert await stale_projections(pool, uuid.UUID(self.tid), state) == []
        finally:
            await pool.close()
        results = sorted(e.match_id for e in events if isinstance(e, ev.MatchResult))
        assert results == sorted(state.matches) == ["W1-1", "W1-2", "W2-1"]
        shown = (await self.org.ok("GET", f"/v1/tournaments/{self.tid}/standings"))["standings"]
        assert [(r["team_id"], r["rank"], r["match_points"] * 2, r["points"],
                 r["differential"], r["bags"], r["reached"], r["eliminated"]) for r in shown] == [
            (r.team_id, r.rank, r.match_points, r.points, r.differential, r.bags, r.reached,
             r.eliminated) for r in standings_of(state)]

    async def close(self) -> None:
        await dismiss(self.attending)
        for p in (*self.players, *([self.org] if hasattr(self, "org") else [])):
            await p.aclose()
