"""Every HTTP route of the lobby in one router: the controllers, the pages, and the
objects they are handed (``deps``); and the platform check that predates ``/v1``."""

from __future__ import annotations

from typing import Any

from litestar import Router, get
from litestar.handlers import HTTPRouteHandler
from litestar.types import ControllerRouterHandler

from schemas.api import PlatformStatus, ServiceStatus
from schemas.subjects import Names
from services.lobby.http import deps
from services.lobby.http.admin_api import OperatorController, replay_pages
from services.lobby.http.api import (
    PlayerController,
    SessionController,
    TableController,
    static_file,
)
from services.lobby.http.fairplay_api import FairPlayController
from services.lobby.http.history_api import PlayerGamesController
from services.lobby.http.matches_api import MatchController
from services.lobby.http.queue_api import QueueController
from services.lobby.http.standings_api import StandingsController
from services.lobby.http.tournaments_api import (
    TeamController,
    TournamentController,
    TournamentReadController,
)
from services.platform.busclient import BusClient

CONTROLLERS = (SessionController, TableController, PlayerController, MatchController,
               QueueController, StandingsController, TournamentController, TeamController,
               TournamentReadController, OperatorController, PlayerGamesController,
               FairPlayController)
PAGES = (("/", "index.html"), ("/app.js", "app.js"), ("/tournaments", "tournaments.html"),
         ("/tournaments.js", "tournaments.js"), ("/cards.js", "cards.js"), ("/say.js", "say.js"))


def router(**objects: Any) -> Router:
    """The lobby's routes, handed ``objects`` by name (``tokens`` among them)."""
    handlers: list[ControllerRouterHandler] = [*CONTROLLERS, *replay_pages()]
    handlers += [static_file(path, name) for path, name in PAGES]
    return Router(path="/", route_handlers=handlers, dependencies=deps.objects(**objects),
                  opt={deps.TOKENS: objects["tokens"]})


DISCOVERY_WAIT = 0.5  # seconds the platform check collects the instances' answers


def platform_route(client: BusClient, names: Names,
                   wait: float = DISCOVERY_WAIT) -> HTTPRouteHandler:
    """The platform check that predates ``/v1``: which service instances of this
    deployment answer on the bus, found by the services API's own discovery (those of
    another deployment on the same NATS, under another prefix, are left out)."""

    @get("/api/v1/platform", summary="Which services answer on the bus")
    async def platform() -> PlatformStatus:
        found = [i for i in await client.instances(wait)
                 if (i.metadata or {}).get("group") == names.service_group(i.name)]
        return PlatformStatus(services=sorted(
            (ServiceStatus(service=i.name, reachable=True,
                           instance=(i.metadata or {}).get("instance") or i.id,
                           version=i.version) for i in found),
            key=lambda s: (s.service, s.instance or "")))

    return platform


__all__ = ["CONTROLLERS", "platform_route", "router"]
