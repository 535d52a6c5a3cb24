"""The four services by name, and the Postgres schema and migrations each owns.

Kept apart from the services themselves so `spades migrate` and the test
session can migrate every schema without starting (or importing) any service.
"""

from __future__ import annotations

from pathlib import Path

from services.platform import sqlfolders
from services.platform.migrations import MigrationSet

HERE = Path(__file__).parent
CONSUMER_SQL = sqlfolders.CONSUMER

SERVICES = ("lobby", "game", "ratings", "tournaments")

MIGRATIONS: dict[str, MigrationSet] = {
    # The lobby's games projection is fed by a durable consumer: it records what it applied.
    # The ranked matchmaker is one leader among lobby copies: it holds a lease.
    "lobby": MigrationSet("lobby", (("consumer", CONSUMER_SQL), ("lease", sqlfolders.LEASE),
                                    ("lobby", HERE / "lobby" / "migrations"))),
    # The game service owns the event store: game streams live in its schema.
    "game": MigrationSet("game", (*sqlfolders.EVENTSTORE_MIGRATIONS,
                                  ("game", HERE / "game" / "migrations"))),
    "ratings": MigrationSet("ratings", (("consumer", CONSUMER_SQL),
                                        ("ratings", HERE / "ratings" / "migrations"))),
    # Tournaments keep their own event store (tournament-<id> streams) beside the consumer's.
    "tournaments": MigrationSet("tournaments", (
        ("consumer", CONSUMER_SQL), *sqlfolders.EVENTSTORE_MIGRATIONS,
        ("tournaments", HERE / "tournaments" / "migrations"))),
}

# Default HTTP port of each service under `spades dev` (health, metrics; API for lobby).
DEV_HTTP_PORTS = {"lobby": 8000, "game": 8001, "ratings": 8002, "tournaments": 8003}


def all_migrations() -> list[MigrationSet]:
    return [MIGRATIONS[name] for name in SERVICES]
