"""The lobby's side of the bus to the tournament service, in the lobby's own terms.

The service answers a refused command with its stable code (``not_organizer``,
``registration_closed`` ...), which the lobby passes on: its HTTP status comes from
the registry of codes (``schemas/errors/__init__.py``). A service that does not answer in time
is 503 ``tournaments_unavailable``.
"""

from __future__ import annotations

from typing import Any, TypeVar

import msgspec

from schemas.errors import from_service
from schemas.errors.codes import TOURNAMENTS_UNAVAILABLE
from schemas.subjects import Names
from schemas.tournaments import api as api
from schemas.tournaments import commands as cmd
from services.lobby.base.errors import LobbyError
from services.platform import bus, logs
from services.platform.busclient import BusClient, Unavailable

T = TypeVar("T", bound=msgspec.Struct)
_log = logs.get("lobby")

class TournamentBus:
    def __init__(self, client: BusClient, names: Names, timeout: float) -> None:
        self.client, self.names, self.timeout = client, names, timeout

    async def _ask(self, endpoint: str, body: msgspec.Struct, reply: type[T]) -> T:
        try:
            return await self.client.request(self.names.endpoint("tournaments", endpoint),
                                             body, reply, timeout=self.timeout)
        except bus.RemoteError as exc:
            code = from_service(exc.code)
            if code != exc.code:  # the lobby sent what the service cannot read, or it failed
                _log.error("tournament_request_refused", endpoint=endpoint, code=exc.code,
                           error=exc.description)
            raise LobbyError(code, exc.description) from None
        except Unavailable as exc:
            _log.warning("tournaments_unavailable", endpoint=endpoint, error=repr(exc))
            raise LobbyError(TOURNAMENTS_UNAVAILABLE,
                             "the tournament service did not answer; try again") from None

    async def write(self, endpoint: str, tournament_id: str, command: cmd.Command,
                    command_id: str | None = None) -> api.CommandReply:
        req: api.TournamentRequest[Any] = api.TournamentRequest(
            tournament_id=tournament_id, command=command, command_id=command_id)
        return await self._ask(endpoint, req, api.CommandReply)

    async def get(self, tournament_id: str) -> api.TournamentView:
        return await self._ask("get", api.GetTournament(tournament_id=tournament_id),
                               api.TournamentView)

    async def events(self, tournament_id: str, after: int, limit: int) -> api.TournamentEvents:
        return await self._ask("events", api.GetEvents(tournament_id=tournament_id, after=after,
                                                       limit=limit), api.TournamentEvents)

    async def withheld(self, player_id: str) -> list[str]:
        """The games ``player_id`` may not see yet (duplicate rounds still to finish)."""
        return (await self._ask("withheld", api.WithheldGames(player_id=player_id),
                                api.GamesWithheld)).game_ids

    async def list(self, status: str | None, limit: int) -> api.TournamentList:
        return await self._ask("list", api.ListTournaments(status=status, limit=limit),
                               api.TournamentList)
