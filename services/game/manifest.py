"""The game workers as the platform knows them (``services/platform/manifest.py``)."""

from pathlib import Path

from services.platform import sql
from services.platform.manifest import Manifest

MANIFEST = Manifest(
    name="game",
    settings_class="services.game.settings:GameSettings",
    setup_function="services.game.service:setup",
    # The game service owns the event store: game streams live in its schema.
    migrations=(*sql.EVENTSTORE_MIGRATIONS,
                ("game", Path(__file__).parent / "migrations")),
    dev_http_port=8001,
)
