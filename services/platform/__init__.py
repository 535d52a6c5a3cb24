"""What every service shares: settings, logging, Postgres, the event store, NATS, HTTP."""

from __future__ import annotations

import functools

DISTRIBUTION = "spades-platform"


@functools.cache
def version() -> str:
    """The platform's one version number, from the installed distribution's metadata.

    pyproject.toml is its only source: `spades --version`, every service's ``/healthz``
    and status endpoint, and the OpenAPI document say it, so an operator reading any of
    them during a roll knows which code answered (CHANGELOG.md says what each version
    changes). Read when first asked, not at import: finding the metadata costs tens of
    milliseconds that commands which never say the version need not pay.
    """
    from importlib.metadata import version as installed

    return installed(DISTRIBUTION)
