"""The ratings service as the platform knows it (``services/platform/manifest.py``)."""

from pathlib import Path

from services.platform import sql
from services.platform.manifest import Manifest

MANIFEST = Manifest(
    name="ratings",
    settings_class="services.ratings.service:RatingsSettings",
    setup_function="services.ratings.service:setup",
    migrations=(("consumer", sql.CONSUMER),
                ("ratings", Path(__file__).parent / "migrations")),
    dev_http_port=8002,
)
