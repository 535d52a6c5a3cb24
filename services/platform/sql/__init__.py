"""Where the platform's own SQL migrations live: the folders beside this file.

Named apart from the modules that run them, so that listing the services and
their migration sets (``services.catalog``, which `spades --help` reads) does
not import the Postgres client.
"""

from __future__ import annotations

from pathlib import Path

SQL = Path(__file__).parent
LEASE = SQL / "lease"
EVENTSTORE = SQL / "eventstore"
CONSUMER = SQL / "consumer"
# The folders a schema holding an event store is migrated from, in order: appends with
# an epoch check it against the schema's leases.
EVENTSTORE_MIGRATIONS = (("lease", LEASE), ("eventstore", EVENTSTORE))
