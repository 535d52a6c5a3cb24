"""The lobby: the public HTTP API (WebSocket gateway, tables and matchmaking come later).

Controllers decode, call one function, encode. Every lobby error is a
`LobbyError` with a stable code, turned into an HTTP answer in one place.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Annotated

import msgspec
from litestar import Request, Response, get, post

from schemas import subjects
from schemas.api import ApiError, CreatePlayer, PlatformStatus, Player, ServiceStatus
from schemas.bus import StatusReply, StatusRequest
from services.lobby import store
from services.platform import bus
from services.platform.runtime import Runtime
from services.platform.settings import Settings

NAME = "lobby"


class LobbySettings(Settings, frozen=True, kw_only=True):
    http_port: Annotated[int, msgspec.Meta(
        ge=0, le=65535, description="Port of the public HTTP API (and health, metrics).")] = 8000
    request_timeout_seconds: Annotated[float, msgspec.Meta(
        gt=0, description="How long the lobby waits for another service's reply.")] = 2.0


class LobbyError(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def error_response(_: Request, exc: LobbyError) -> Response[ApiError]:  # type: ignore[type-arg]
    return Response(ApiError(code=exc.code, message=exc.message), status_code=exc.status)


def routes(rt: Runtime) -> list[object]:
    assert isinstance(rt.settings, LobbySettings)
    timeout = rt.settings.request_timeout_seconds

    @post("/api/v1/players", status_code=201, summary="Register a player name")
    async def create_player(data: CreatePlayer) -> Player:
        try:
            player_id, name = await store.create_player(rt.pool, data.name)
        except store.NameTaken:
            raise LobbyError(409, "name_taken", f"the name {data.name!r} is taken") from None
        return Player(player_id=player_id, name=name)

    @get("/api/v1/players/{player_id:uuid}", summary="A player by id")
    async def read_player(player_id: uuid.UUID) -> Player:
        found = await store.get_player(rt.pool, player_id)
        if found is None:
            raise LobbyError(404, "player_not_found", f"no player {player_id}")
        return Player(player_id=found[0], name=found[1])

    @get("/api/v1/platform", summary="Which services answer on the bus")
    async def platform() -> PlatformStatus:
        async def ask(service: str) -> ServiceStatus:
            try:
                reply = await bus.request(rt.nc, rt.names.endpoint(service, "status"),
                                          StatusRequest(), StatusReply, timeout=timeout)
            except Exception:
                return ServiceStatus(service=service, reachable=False)
            return ServiceStatus(service=service, reachable=True, instance=reply.instance,
                                 version=reply.version)

        return PlatformStatus(services=list(await asyncio.gather(
            *(ask(s) for s in subjects.SERVICES))))

    return [create_player, read_player, platform]


async def setup(rt: Runtime) -> None:
    rt.public_api = True
    rt.routes.extend(routes(rt))  # type: ignore[arg-type]
    rt.exception_handlers[LobbyError] = error_response
