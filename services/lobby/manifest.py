"""The lobby as the platform knows it (``services/platform/manifest.py``)."""

from pathlib import Path

from services.platform import sql
from services.platform.manifest import Manifest

MANIFEST = Manifest(
    name="lobby",
    settings_class="services.lobby.base.settings:LobbySettings",
    setup_function="services.lobby.service:setup",
    # The games projection is fed by a durable consumer: it records what it applied.
    # The ranked matchmaker is one leader among lobby copies: it holds a lease.
    migrations=(("consumer", sql.CONSUMER), ("lease", sql.LEASE),
                ("lobby", Path(__file__).parent / "migrations")),
    dev_http_port=8000,
)
