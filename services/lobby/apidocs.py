"""The public API's OpenAPI document and its viewer at ``/schema``.

A client author may have only this document, so it says what the server really
does: the bearer-token scheme, the one error shape ``{code, message}`` (not the
framework's own) with the statuses each route can answer, and an example of each
body. The viewer (Swagger UI) is served from the ``swagger-ui-py`` package, not a
CDN, so the docs work on a machine with no outside network.
"""

from __future__ import annotations

from importlib import resources
from typing import Any

from litestar import Response, get
from litestar.openapi import OpenAPIConfig, ResponseSpec
from litestar.openapi.plugins import SwaggerRenderPlugin
from litestar.openapi.spec import Components, Example, SecurityScheme
from litestar.static_files import create_static_files_router

from schemas.api import ApiError

ASSETS = "/schema-assets"
FAVICON = "/favicon.svg"
BEARER: list[dict[str, list[str]]] = [{"bearer": []}]

DESCRIPTION = """\
The lobby's public API: sign in, tables, games. Every route but sign-in wants
`Authorization: Bearer <token>` (the `token` of a sign-in answer); `GET /v1/tables`
is open to anyone. Play happens over the WebSocket `/v1/ws?token=<token>`,
described with every frame and error code in docs/protocol.md.

Every error answers with a JSON body `{"code": ..., "message": ...}`: branch on the
stable `code`, show the `message`.
"""

# One plain example per status; the route's own codes are in each description.
_ERRORS: dict[int, tuple[str, str, str]] = {
    400: ("a malformed body or parameter", "bad_request",
          "Expected `str` of length <= 32 (name)"),
    401: ("no token, or an expired or forged one; sign in again", "unauthenticated",
          "a bearer token is required"),
    403: ("signed in, but not allowed to do this", "not_host",
          "only the table's host may do that"),
    404: ("no such table, game or account", "table_not_found", "no table t-1a2b3c"),
    409: ("the table's state refuses it (taken, started, full...)", "seat_taken",
          "seat 2 is taken"),
    429: ("too many attempts; wait for the Retry-After seconds", "rate_limited",
          "too many failed sign-ins; try again in 60 s"),
    503: ("no game worker answered in time; retry", "game_unavailable",
          "no game worker answered"),
}


def answers(status: int, body: type[Any], example: Any, *errors: int,
            description: str = "") -> dict[int, ResponseSpec]:
    """A route's documented answers: its success with an example, then its errors."""
    out = {status: ResponseSpec(body, description=description or "Success",
                                examples=[Example(value=example)])}
    for code in errors:
        text, error_code, message = _ERRORS[code]
        out[code] = ResponseSpec(ApiError, description=text, examples=[
            Example(value={"code": error_code, "message": message})])
    return out


def config(version: str) -> OpenAPIConfig:
    return OpenAPIConfig(
        title="Spades lobby API", version=version, path="/schema", description=DESCRIPTION,
        use_handler_docstrings=True,
        components=Components(security_schemes={"bearer": SecurityScheme(
            type="http", scheme="bearer", bearer_format="JWT",
            description="The token of POST /v1/auth/guest, /register or /login.")}),
        render_plugins=[SwaggerRenderPlugin(
            path="/", js_url=f"{ASSETS}/swagger-ui-bundle.js",
            css_url=f"{ASSETS}/swagger-ui.css",
            standalone_preset_js_url=f"{ASSETS}/swagger-ui-standalone-preset.js",
            favicon=f"<link rel='icon' type='image/svg+xml' href='{FAVICON}'>")])


ICON = (b"<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 32 32'>"
        b"<rect width='32' height='32' rx='6' fill='#0f3d2e'/>"
        b"<text x='16' y='25' font-size='24' text-anchor='middle' fill='#f4f1e8'>"
        b"\xe2\x99\xa0</text></svg>")


def routes() -> list[Any]:
    """The viewer's assets from the installed package, and the site's icon."""
    assets = resources.files("swagger_ui") / "static"

    @get([FAVICON, "/favicon.ico"], include_in_schema=False, sync_to_thread=False)
    def favicon() -> Response[bytes]:
        return Response(ICON, media_type="image/svg+xml",
                        headers={"cache-control": "max-age=86400"})

    return [create_static_files_router(path=ASSETS, directories=[str(assets)],
                                       include_in_schema=False), favicon]


__all__ = ["BEARER", "answers", "config", "routes"]
