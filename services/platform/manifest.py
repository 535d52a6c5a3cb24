"""What the platform knows of a service, declared once in the service's own package.

Each service has a ``manifest.py`` holding one ``Manifest``: its name (also its
Postgres schema and its group on the NATS services API), its settings struct and
set-up function (named, imported only when the service is served or its settings
are read, so that `spades --help` and `spades migrate` import no service), the
migration folders of its schema, and its HTTP port under `spades dev`. The list of
services (``services/catalog.py``) names the packages; everything else reads their
manifests.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from services.platform.migrations import MigrationSet
from services.platform.settings import Settings

if TYPE_CHECKING:  # the runtime pulls in the HTTP stack; commands that never serve skip it
    from services.platform.runtime import Setup


def _load(target: str) -> Any:
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)


@dataclass(frozen=True)
class Manifest:
    name: str
    settings_class: str  # "module:Class", a ``Settings`` struct
    setup_function: str  # "module:function", a ``runtime.Setup``
    migrations: tuple[tuple[str, Path], ...]  # (label, folder), applied in order
    dev_http_port: int

    @property
    def migration_set(self) -> MigrationSet:
        return MigrationSet(self.name, self.migrations)

    @property
    def settings(self) -> type[Settings]:
        cls = _load(self.settings_class)
        assert isinstance(cls, type) and issubclass(cls, Settings), self.settings_class
        return cls

    @property
    def setup(self) -> Setup:
        return _load(self.setup_function)


__all__ = ["Manifest"]
