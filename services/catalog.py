"""The services by name: the one list a new service joins. Each declares the rest
(settings, set-up, migrations, port) in its own ``manifest.py``.

Manifests import no service module: `spades migrate`, `spades --help` and the test
session read them without starting (or importing) any service.
"""

from __future__ import annotations

import importlib
from functools import cache

from services.platform import sql
from services.platform.manifest import Manifest
from services.platform.migrations import MigrationSet

SERVICES = ("lobby", "game", "ratings", "tournaments")

CONSUMER_SQL = sql.CONSUMER


@cache
def manifest(name: str) -> Manifest:
    if name not in SERVICES:
        raise KeyError(f"no service {name!r}; one of {', '.join(SERVICES)}")
    found: Manifest = importlib.import_module(f"services.{name}.manifest").MANIFEST
    assert found.name == name, (name, found.name)
    return found


MIGRATIONS: dict[str, MigrationSet] = {name: manifest(name).migration_set for name in SERVICES}

# Default HTTP port of each service under `spades dev` (health, metrics; API for lobby).
DEV_HTTP_PORTS = {name: manifest(name).dev_http_port for name in SERVICES}


def all_migrations() -> list[MigrationSet]:
    return [MIGRATIONS[name] for name in SERVICES]
