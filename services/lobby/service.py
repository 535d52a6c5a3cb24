"""The lobby: the public HTTP API and the WebSocket gateway.

Controllers decode, call one function, encode. Every lobby error is a
`LobbyError` with a stable code, turned into an HTTP answer here, in one place
(the WebSocket's error frames are made in ``socket.py``).
"""

from __future__ import annotations

import asyncio
import secrets
from typing import Annotated, Any

import msgspec
from litestar import Request, Response, get

from schemas import subjects
from schemas.api import ApiError, PlatformStatus, ServiceStatus
from schemas.bus import StatusReply, StatusRequest
from services.lobby import admin_api, api, apidocs, operators, socket
from services.lobby.auth import Tokens
from services.lobby.errors import LobbyError
from services.lobby.gamebus import GameBus
from services.lobby.gateway import Gateway, GatewayLimits
from services.lobby.tables import Tables
from services.platform import bus, logs
from services.platform.bus import Consumer
from services.platform.runtime import VERSION, Runtime
from services.platform.settings import Settings

NAME = "lobby"

__all__ = ["LobbyError", "LobbySettings", "setup"]


class LobbySettings(Settings, frozen=True, kw_only=True):
    http_port: Annotated[int, msgspec.Meta(
        ge=0, le=65535, description="Port of the public HTTP API (and health, metrics).")] = 8000
    request_timeout_seconds: Annotated[float, msgspec.Meta(
        gt=0, description="How long the lobby waits for another service's reply.")] = 2.0
    token_secret: Annotated[str, msgspec.Meta(
        description="Secret that signs tokens (HS256). Every lobby copy needs the same one; "
                    "empty: a random one per process (tokens die with it).")] = ""
    token_ttl_seconds: Annotated[int, msgspec.Meta(
        ge=1, description="How long a token is valid after sign-in.")] = 86_400
    ws_allowed_origins: Annotated[str, msgspec.Meta(
        description="Comma-separated origins whose pages may open /v1/ws besides the "
                    "lobby's own; '*' allows any.")] = ""
    ws_max_frame_bytes: Annotated[int, msgspec.Meta(
        ge=256, description="Largest WebSocket frame a client may send.")] = 4096
    ws_frames_per_second: Annotated[float, msgspec.Meta(
        gt=0, description="Frames per second a socket may send on average.")] = 20.0
    ws_frame_burst: Annotated[int, msgspec.Meta(
        ge=1, description="Frames a socket may send at once above the average.")] = 40
    ws_sockets_per_player: Annotated[int, msgspec.Meta(
        ge=1, description="Open sockets one player may hold on one lobby copy.")] = 4
    chat_max_chars: Annotated[int, msgspec.Meta(
        ge=1, description="Longest chat line.")] = 200
    chat_per_second: Annotated[float, msgspec.Meta(
        gt=0, description="Chat lines per second a socket may send on average.")] = 1.0
    chat_burst: Annotated[int, msgspec.Meta(
        ge=1, description="Chat lines a socket may send at once.")] = 3
    disconnect_grace_seconds: Annotated[float, msgspec.Meta(
        ge=0, description="How long a seated player who dropped keeps the seat before "
                          "the game is told they left.")] = 30.0
    resume_max_events: Annotated[int, msgspec.Meta(
        ge=0, description="A resuming socket gets the missed events up to this many, "
                          "else a fresh snapshot.")] = 64
    operator_cache_games: Annotated[int, msgspec.Meta(
        ge=1, description="Game logs (and their folded states) an operator's replay keeps "
                          "in memory on one lobby copy.")] = 64


def error_response(_: Request[Any, Any, Any], exc: LobbyError) -> Response[ApiError]:
    return Response(ApiError(code=exc.code, message=exc.message), status_code=exc.status)


def bad_id_response(_: Request[Any, Any, Any], exc: subjects.BadId) -> Response[ApiError]:
    """An id that slipped past the edge's checks and would have made a bad subject."""
    return Response(ApiError(code="bad_id", message=str(exc)), status_code=400)


def legacy_routes(rt: Runtime) -> list[object]:
    """The platform check that predates ``/v1``."""
    assert isinstance(rt.settings, LobbySettings)
    timeout = rt.settings.request_timeout_seconds

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

    return [platform]


async def setup(rt: Runtime) -> None:
    s = rt.settings
    assert isinstance(s, LobbySettings)
    secret = s.token_secret
    if not secret:
        secret = secrets.token_hex(32)
        logs.get(NAME).warning("token_secret_unset",
                               note="tokens are valid on this process only")
    tokens = Tokens(secret, s.token_ttl_seconds)
    games = GameBus(rt.nc, rt.names, s.request_timeout_seconds)
    tables = Tables(rt.pool, games)
    limits = GatewayLimits(
        frames_per_second=s.ws_frames_per_second, frame_burst=s.ws_frame_burst,
        sockets_per_player=s.ws_sockets_per_player, chat_max_chars=s.chat_max_chars,
        chat_per_second=s.chat_per_second, chat_burst=s.chat_burst,
        grace_seconds=s.disconnect_grace_seconds, resume_max_events=s.resume_max_events)
    gateway = Gateway(tables, games, rt.names, limits)
    await gateway.start()
    rt.workers.append(gateway)
    origins = frozenset(o.strip() for o in s.ws_allowed_origins.split(",") if o.strip())
    rt.openapi = apidocs.config(VERSION)
    rt.routes.extend(apidocs.routes())
    # Past the lobby's own cap a frame gets an error frame; far past it uvicorn cuts it off.
    rt.ws_max_size = 16 * s.ws_max_frame_bytes
    rt.routes.extend(legacy_routes(rt))  # type: ignore[arg-type]
    rt.routes.extend(api.routes(rt.pool, tokens, tables, gateway))
    rt.routes.append(socket.handler(gateway, tokens, origins, s.ws_max_frame_bytes))
    rt.routes.extend(admin_api.routes(rt.pool, tokens, operators.Operators(
        rt.pool, games, s.operator_cache_games)))
    started, ended = operators.projection_handlers()
    for durable, event_type, handler in (
            (subjects.LOBBY_GAMES_STARTED, subjects.GAME_STARTED, started),
            (subjects.LOBBY_GAMES_ENDED, subjects.GAME_ENDED, ended)):
        consumer = Consumer(rt.js, rt.pool, rt.consumer(
            durable, rt.names.game_events_of_type(event_type)), handler)
        await consumer.start()
        rt.workers.append(consumer)
    rt.exception_handlers[LobbyError] = error_response
    rt.exception_handlers[subjects.BadId] = bad_id_response
