"""The lobby's HTTP routes under ``/v1``: decode, call one service function, encode.

Who calls is read from ``Authorization: Bearer <token>`` on every route but
the sign-in ones; errors become ``ApiError`` bodies in ``service.py``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from litestar import Request, Response, get, patch, post

from schemas.api import (
    CreateTable,
    GameSummary,
    GuestSignIn,
    JoinByCode,
    JoinTable,
    Login,
    Register,
    Session,
    SetBots,
    SetTableOptions,
    Table,
    TableList,
)
from services.lobby import auth
from services.lobby.auth import Claims, Tokens
from services.lobby.gateway import Gateway
from services.lobby.params import GameId, TableId
from services.lobby.tables import Tables
from services.lobby.throttle import Throttle

STATIC = Path(__file__).parent / "static"


def routes(pool: Any, tokens: Tokens, throttle: Throttle, tables: Tables,
           gateway: Gateway) -> list[Any]:
    def me(request: Request[Any, Any, Any]) -> Claims:
        return tokens.from_header(request.headers.get("authorization"))

    def address(request: Request[Any, Any, Any]) -> str:
        """The caller's address (a trusted proxy's X-Forwarded-For, as uvicorn reads it)."""
        return request.client.host if request.client else "unknown"

    @post("/v1/auth/guest", status_code=201, summary="Sign in as a guest", tags=["auth"])
    async def guest(request: Request[Any, Any, Any], data: GuestSignIn) -> Session:
        throttle.sign_up(address(request))
        return await auth.guest(pool, tokens, data.name)

    @post("/v1/auth/register", status_code=201, summary="Register a name with a password",
          tags=["auth"])
    async def register(request: Request[Any, Any, Any], data: Register) -> Session:
        throttle.sign_up(address(request))
        return await auth.register(pool, tokens, data.name, data.password)

    @post("/v1/auth/login", status_code=200, summary="Sign in to a registered name",
          tags=["auth"])
    async def login(request: Request[Any, Any, Any], data: Login) -> Session:
        return await auth.login(pool, tokens, throttle, data.name, data.password,
                                address(request))

    @post("/v1/tables", status_code=201, summary="Open a table (private ones get a room code)",
          tags=["tables"])
    async def create_table(request: Request[Any, Any, Any], data: CreateTable) -> Table:
        return await tables.create(me(request), data.rules, data.private, data.banter, data.seat)

    @get("/v1/tables", summary="Open public tables, their rules and free seats", tags=["tables"])
    async def list_tables(request: Request[Any, Any, Any]) -> TableList:
        me(request)
        return TableList(tables=await tables.list_open())

    @get("/v1/tables/{table_id:str}", summary="One table", tags=["tables"])
    async def read_table(request: Request[Any, Any, Any], table_id: TableId) -> Table:
        return await tables.get(me(request), table_id)

    @post("/v1/tables/join", status_code=200, summary="Join a private table by its room code",
          tags=["tables"])
    async def join_by_code(request: Request[Any, Any, Any], data: JoinByCode) -> Table:
        return await tables.join_by_code(me(request), data.code, data.seat)

    @post("/v1/tables/{table_id:str}/join", status_code=200,
          summary="Take a seat (a given one, or the first free)", tags=["tables"])
    async def join(request: Request[Any, Any, Any], table_id: TableId,
                   data: JoinTable | None = None) -> Table:
        return await tables.join(me(request), table_id, data.seat if data else None)

    @post("/v1/tables/{table_id:str}/leave", status_code=200, summary="Leave one's seat",
          tags=["tables"])
    async def leave(request: Request[Any, Any, Any], table_id: TableId) -> Table:
        return await tables.leave(me(request), table_id)

    @post("/v1/tables/{table_id:str}/bots", status_code=200,
          summary="Host: a bot (and its level) on one seat or on every free seat",
          tags=["tables"])
    async def bots(request: Request[Any, Any, Any], table_id: TableId, data: SetBots) -> Table:
        return await tables.set_bots(me(request), table_id, data.seat, data.level, data.remove)

    @patch("/v1/tables/{table_id:str}/rules", summary="Private table host: change rules "
           "before the first deal (body: the options to change)", tags=["tables"])
    async def change_rules(request: Request[Any, Any, Any], table_id: TableId,
                           data: dict[str, Any]) -> Table:
        return await tables.change_rules(me(request), table_id, data)

    @post("/v1/tables/{table_id:str}/rules/reset", status_code=200,
          summary="Host: every rule back to the table's preset", tags=["tables"])
    async def reset_rules(request: Request[Any, Any, Any], table_id: TableId) -> Table:
        return await tables.reset_rules(me(request), table_id)

    @patch("/v1/tables/{table_id:str}", summary="Host: table options (bot banter on or off)",
           tags=["tables"])
    async def options(request: Request[Any, Any, Any], table_id: TableId,
                      data: SetTableOptions) -> Table:
        return await tables.set_banter(me(request), table_id, data.banter)

    @post("/v1/tables/{table_id:str}/start", status_code=200,
          summary="Host: start the game (empty seats get bots)", tags=["tables"])
    async def start(request: Request[Any, Any, Any], table_id: TableId) -> Table:
        return await tables.start(me(request), table_id)

    @get("/v1/games/{game_id:str}", summary="A game's public summary", tags=["games"])
    async def game(request: Request[Any, Any, Any], game_id: GameId) -> GameSummary:
        me(request)
        return await gateway.summary(game_id)

    page, code = (STATIC / "index.html").read_bytes(), (STATIC / "app.js").read_bytes()

    @get("/", include_in_schema=False, sync_to_thread=False)
    def index() -> Response[bytes]:
        return Response(page, media_type="text/html; charset=utf-8")

    @get("/app.js", include_in_schema=False, sync_to_thread=False)
    def script() -> Response[bytes]:
        return Response(code, media_type="text/javascript; charset=utf-8")

    return [guest, register, login, create_table, list_tables, read_table, join_by_code, join,
            leave, bots, change_rules, reset_rules, options, start, game, index, script]


__all__ = ["routes"]
