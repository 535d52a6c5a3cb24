"""What a route is handed instead of reading it itself.

The lobby's objects reach each controller as dependencies, by name (``tables``,
``queue``, ``pool`` ...: ``objects``); so does the caller: ``me``, the claims of the
bearer token (401 without a good one), and ``address``, the client's address. Routes
that only need someone signed in, and nothing of who, say so with the ``signed_in``
guard. Roles are the rooms' to check (``require_operator``, ``require_organizer``), after
the request's parameters are: a malformed request is 400 whatever the caller's role.
"""

from __future__ import annotations

from typing import Any

from litestar import Request
from litestar.connection import ASGIConnection
from litestar.di import Provide
from litestar.handlers.base import BaseRouteHandler

from services.lobby.accounts.auth import Claims, Tokens

TOKENS = "tokens"  # the route option the guard reads the token checker from


def caller(request: Request[Any, Any, Any], tokens: Tokens) -> Claims:
    return tokens.from_header(request.headers.get("authorization"))


def address(request: Request[Any, Any, Any]) -> str:
    """The caller's address (a trusted proxy's X-Forwarded-For, as uvicorn reads it)."""
    return request.client.host if request.client else "unknown"


def signed_in(connection: ASGIConnection[Any, Any, Any, Any], handler: BaseRouteHandler) -> None:
    """Guard: someone with a good token calls (401 ``unauthenticated`` otherwise)."""
    handler.opt[TOKENS].from_header(connection.headers.get("authorization"))


def objects(**given: Any) -> dict[str, Provide]:
    """Each object as a dependency of its name, and the caller's three."""
    def const(value: Any) -> Any:
        def provide() -> Any:
            return value
        return provide

    return {**{name: Provide(const(value), use_cache=True, sync_to_thread=False)
               for name, value in given.items()},
            "me": Provide(caller, sync_to_thread=False),
            "address": Provide(address, sync_to_thread=False)}


__all__ = ["TOKENS", "address", "caller", "objects", "signed_in"]
