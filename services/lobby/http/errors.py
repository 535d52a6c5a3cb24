"""The lobby's errors as HTTP answers, in one place: a ``LobbyError`` becomes an
``ApiError`` body with the registry's status; an id that would make a bad subject is
400 ``bad_id``."""

from __future__ import annotations

from typing import Any

from litestar import Request, Response

from schemas import subjects
from schemas.api import ApiError
from schemas.errors import RETRY_AFTER, lookup
from services.lobby.base.errors import LobbyError
from services.platform import db


def error_response(_: Request[Any, Any, Any], exc: LobbyError) -> Response[ApiError]:
    """A code whose registry entry carries ``retry_after`` (the 503s, 429 rate_limited)
    always tells the client when to try again."""
    retry = exc.retry_after
    if retry is None and RETRY_AFTER in lookup(exc.code).fields:
        retry = db.RETRY_AFTER_SECONDS
    headers = {"retry-after": str(retry)} if retry else None
    return Response(ApiError(code=exc.code, message=exc.message), status_code=exc.status,
                    headers=headers)


def bad_id_response(_: Request[Any, Any, Any], exc: subjects.BadId) -> Response[ApiError]:
    """An id that slipped past the edge's checks and would have made a bad subject."""
    return Response(ApiError(code="bad_id", message=str(exc)),
                    status_code=lookup("bad_id").status)


__all__ = ["bad_id_response", "error_response"]
