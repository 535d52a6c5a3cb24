"""The tournament service on NATS: ``svc.tournaments.<endpoint>``, msgpack bodies, and
what calling a match asks of others (``MatchCalls``: the lobby's ``svc.lobby.open_match``,
the game workers' ``svc.game.since``, notes to players).

Handlers only decode (the bus does), call the store and encode. Errors are
mapped here, once: a ``TournamentError`` becomes an error reply whose code is
its stable code (``not_partner``, ``registration_closed`` ...), so the lobby can
hand it to the client as it is.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import msgspec

from schemas.bus import EventEnvelope
from schemas.gamebus import EventsReply, EventsSince
from schemas.matches import OPEN_MATCH, MatchOpened, OpenMatch
from schemas.notes import Note
from schemas.subjects import Names
from schemas.tournaments import api as api
from schemas.tournaments import commands as cmd
from schemas.tournaments.events import public
from services.platform import bus
from services.platform.busclient import BusClient, Refused, Unavailable
from services.tournaments.calls import CallRefused
from services.tournaments.errors import TournamentError
from services.tournaments.reads import duplicate, summaries, view, withheld
from services.tournaments.store import TournamentStore, stream_of

# Endpoint name -> the command it carries.
WRITES: dict[str, type[cmd.Command]] = {
    "create": cmd.CreateTournament,
    "patch": cmd.ChangeSettings,
    "cancel": cmd.Cancel,
    "register": cmd.RegisterTeam,
    "confirm": cmd.ConfirmTeam,
    "withdraw": cmd.WithdrawTeam,
    "check_in": cmd.CheckIn,
    "override": cmd.OverrideResult,
    "disqualify": cmd.Disqualify,
    "waive_ban": cmd.WaiveBan,
    "seed": cmd.SetSeeds,
    "set_pairings": cmd.SetPairings,
    "add_bots": cmd.AddBotTeam,
    "start_now": cmd.StartNow,
}


def _tournament_id(raw: str) -> uuid.UUID:
    try:
        return uuid.UUID(raw)
    except ValueError:
        raise Refused("bad_tournament_id", "a tournament id is a UUID") from None


def endpoints(store: TournamentStore, now_ms: Callable[[], int]) -> list[bus.Endpoint]:
    def write(command_type: type[cmd.Command]) -> Callable[[Any], Awaitable[api.CommandReply]]:
        async def handle(req: api.TournamentRequest[Any]) -> api.CommandReply:
            tid = str(_tournament_id(req.tournament_id))
            command = msgspec.structs.replace(req.command, at=now_ms())
            if isinstance(command, cmd.CreateTournament) and command.tournament_id != tid:
                raise Refused("bad_tournament_id", "the command names another tournament")
            try:
                state, events = await store.execute(tid, command, req.command_id)
            except TournamentError as exc:
                raise Refused(exc.code, exc.message) from None
            return api.CommandReply(tournament_id=tid, version=state.version,
                                    events=[type(e).__name__ for e in events])
        return handle

    async def get(req: api.GetTournament) -> api.TournamentView:
        found = await view(store.pool, _tournament_id(req.tournament_id))
        if found is None:
            raise Refused("no_tournament", "no such tournament")
        return found

    async def events(req: api.GetEvents) -> api.TournamentEvents:
        tid = str(_tournament_id(req.tournament_id))
        version = await store.events.version(stream_of(tid))
        if not version:
            raise Refused("no_tournament", "no such tournament")
        recorded = await store.events.read(stream_of(tid), req.after + 1, req.after + req.limit)
        dup = await duplicate(store.pool, uuid.UUID(tid))
        return api.TournamentEvents(tournament_id=tid, version=version, events=[
            api.RecordedEvent(version=r.version, event=public(r.event, dup))  # type: ignore[arg-type]
            for r in recorded])

    async def withheld_games(req: api.WithheldGames) -> api.GamesWithheld:
        return api.GamesWithheld(game_ids=await withheld(store.pool, req.player_id))

    async def list_(req: api.ListTournaments) -> api.TournamentList:
        return api.TournamentList(tournaments=await summaries(store.pool, req.status, req.limit))

    return [
        *(bus.Endpoint(name, api.TournamentRequest[command_type],  # type: ignore[valid-type]
                       write(command_type)) for name, command_type in WRITES.items()),
        bus.Endpoint("get", api.GetTournament, get),
        bus.Endpoint("list", api.ListTournaments, list_),
        bus.Endpoint("events", api.GetEvents, events),
        bus.Endpoint("withheld", api.WithheldGames, withheld_games),
    ]


class MatchCalls:
    """What calling a match asks of other services, on the bus: the lobby opens the
    match (``svc.lobby.open_match``), any game worker tells its game's last stored
    event (``svc.game.since``), and each player gets the call as a note."""

    def __init__(self, client: BusClient, names: Names, timeout: float) -> None:
        self.client, self.names, self.timeout = client, names, timeout

    async def open_match(self, req: OpenMatch) -> MatchOpened:
        try:
            return await self.client.request(self.names.endpoint("lobby", OPEN_MATCH), req,
                                             MatchOpened, timeout=self.timeout)
        except bus.RemoteError as exc:
            raise CallRefused(exc.code, exc.description) from None
        except Unavailable:
            raise CallRefused("lobby_unavailable", "no lobby answered in time") from None

    async def last_event(self, game_id: str) -> EventEnvelope | None:
        """The game's last stored event (None: no such game), from any game worker."""
        async def since(version: int) -> EventsReply:
            try:
                return await self.client.request(
                    self.names.game_events_since,
                    EventsSince(game_id=game_id, version=version, limit=1), EventsReply,
                    timeout=self.timeout)
            except bus.RemoteError as exc:
                raise CallRefused(exc.code, exc.description) from None
            except Unavailable:
                raise CallRefused("game_unavailable", "no game worker answered") from None

        now = (await since(1 << 62)).version
        if now == 0:
            return None
        events = (await since(now - 1)).events
        return events[-1] if events else None

    async def note(self, player_id: str, note: Note) -> None:
        await self.client.publish(self.names.player_note(player_id), note)
