"""Every HTTP route of the lobby in one router: the controllers, the pages, and the
objects they are handed (``deps``)."""

from __future__ import annotations

from typing import Any

from litestar import Router
from litestar.types import ControllerRouterHandler

from services.lobby.http import deps
from services.lobby.http.admin_api import OperatorController, replay_pages
from services.lobby.http.api import (
    PlayerController,
    SessionController,
    TableController,
    static_file,
)
from services.lobby.http.matches_api import MatchController
from services.lobby.http.queue_api import QueueController
from services.lobby.http.standings_api import StandingsController
from services.lobby.http.tournaments_api import (
    TeamController,
    TournamentController,
    TournamentReadController,
)

CONTROLLERS = (SessionController, TableController, PlayerController, MatchController,
               QueueController, StandingsController, TournamentController, TeamController,
               TournamentReadController, OperatorController)
PAGES = (("/", "index.html"), ("/app.js", "app.js"), ("/tournaments", "tournaments.html"),
         ("/tournaments.js", "tournaments.js"))


def router(**objects: Any) -> Router:
    """The lobby's routes, handed ``objects`` by name (``tokens`` among them)."""
    handlers: list[ControllerRouterHandler] = [*CONTROLLERS, *replay_pages()]
    handlers += [static_file(path, name) for path, name in PAGES]
    return Router(path="/", route_handlers=handlers, dependencies=deps.objects(**objects),
                  opt={deps.TOKENS: objects["tokens"]})


__all__ = ["CONTROLLERS", "router"]
