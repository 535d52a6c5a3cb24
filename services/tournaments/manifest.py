"""The tournaments service as the platform knows it (``services/platform/manifest.py``)."""

from pathlib import Path

from services.platform import sql
from services.platform.manifest import Manifest

MANIFEST = Manifest(
    name="tournaments",
    settings_class="services.tournaments.service:TournamentsSettings",
    setup_function="services.tournaments.service:setup",
    # Tournaments keep their own event store (tournament-<id> streams) beside the
    # consumer's.
    migrations=(("consumer", sql.CONSUMER), *sql.EVENTSTORE_MIGRATIONS,
                ("tournaments", Path(__file__).parent / "migrations")),
    dev_http_port=8003,
)
