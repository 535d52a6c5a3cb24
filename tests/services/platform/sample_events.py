"""Small event types of our own, so the store's tests do not depend on the game's."""

from __future__ import annotations

from typing import ClassVar

import msgspec


class SampleEvent(msgspec.Struct, frozen=True, tag=True, tag_field="type", kw_only=True):
    VERSION: ClassVar[int] = 1


class Opened(SampleEvent, frozen=True):
    name: str


class Counted(SampleEvent, frozen=True):
    n: int


class Renamed(SampleEvent, frozen=True):
    """Version 2 split ``name`` into ``first`` and ``last``."""

    VERSION: ClassVar[int] = 2
    first: str
    last: str


class RenamedV1(SampleEvent, frozen=True, tag="Renamed"):
    """The shape ``Renamed`` was stored in before version 2."""

    name: str


Sample = Opened | Counted | Renamed
