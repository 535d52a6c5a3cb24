"""Bodies of the public HTTP API (the lobby)."""

from __future__ import annotations

from typing import Annotated

import msgspec

PlayerName = Annotated[str, msgspec.Meta(min_length=1, max_length=32, pattern=r"^[\w .-]+$")]


class ApiError(msgspec.Struct, frozen=True):
    """Every error answer: a stable code to branch on and a plain message to show."""

    code: str
    message: str


class CreatePlayer(msgspec.Struct, frozen=True):
    name: PlayerName


class Player(msgspec.Struct, frozen=True):
    player_id: str
    name: str


class ServiceStatus(msgspec.Struct, frozen=True):
    service: str
    reachable: bool
    instance: str | None = None
    version: str | None = None


class PlatformStatus(msgspec.Struct, frozen=True):
    services: list[ServiceStatus]
