"""Each service's settings struct and set-up function, by name, imported on demand."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from services.catalog import MIGRATIONS, SERVICES
from services.platform.migrations import MigrationSet
from services.platform.settings import Settings

if TYPE_CHECKING:  # the runtime pulls in the HTTP stack; commands that never serve skip it
    from services.platform.runtime import Setup

_SETTINGS = {"lobby": "LobbySettings", "game": "GameSettings", "ratings": "RatingsSettings",
             "tournaments": "TournamentsSettings"}


@dataclass(frozen=True)
class ServiceSpec:
    name: str
    settings: type[Settings]
    setup: Setup
    migrations: MigrationSet


def spec(name: str) -> ServiceSpec:
    if name not in SERVICES:
        raise KeyError(f"no service {name!r}; one of {', '.join(SERVICES)}")
    module = importlib.import_module(f"services.{name}.service")
    return ServiceSpec(name, getattr(module, _SETTINGS[name]), module.setup, MIGRATIONS[name])
