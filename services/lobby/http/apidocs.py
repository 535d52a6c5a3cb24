"""The public API's OpenAPI document and its viewer at ``/schema``.

A client author may have only this document, so it says what the server really
does: the bearer-token scheme, the one error shape ``{code, message}`` (not the
framework's own) with every error code each route declares (from the registry in
``schemas/errors/__init__.py``: its status and meaning), and an example of each body. The
viewer (Swagger UI) is served from the ``swagger-ui-py`` package, not a CDN, so the
docs work on a machine with no outside network.
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
from schemas.errors import ErrorCode, lookup

ASSETS = "/schema-assets"
FAVICON = "/favicon.svg"
BEARER: list[dict[str, list[str]]] = [{"bearer": []}]

DESCRIPTION = """\
The lobby's public API: sign in, tables, games. Every route but sign-in wants
`Authorization: Bearer <token>` (the `token` of a sign-in answer); `GET /v1/tables`
is open to anyone. Play happens over the WebSocket `/v1/ws?token=<token>`,
described with every frame and error code in docs/protocol.md.

Every error answers with a JSON body `{"code": ..., "message": ...}`: branch on the
stable `code`, show the `message`. Each route lists every code it may answer, under
the status that code always has; a 503 (and a 429) says in `Retry-After` when to try
again. The table of all codes is in docs/protocol.md.
"""

# Codes many routes share: a bearer token's refusals, and Postgres being away.
SIGNED_IN = ("unauthenticated", "bad_token", "token_expired")
STORE = ("unavailable",)
# A route that reads a body: a malformed one, or one over the size limit (Litestar's
# request_max_body_size, 10 MB).
BODY = ("bad_request", "body_too_large")
# A game worker's refusal of a command the lobby sends for the caller (a seat left).
GAME_REFUSALS = ("game_unavailable", "rejected", "busy", "not_owner", "conflict",
                 "game_over", "wrong_phase", "seat_is_bot")
# A game the call starts (a table's, a match's): its opening refused or not answered.
STARTS = ("game_unavailable", "match_failed", "match_id_reused", "game_exists", "rejected",
          "busy", "not_owner", "conflict", "in_game")


def answers(status: int, body: type[Any], example: Any, *codes: str,
            description: str = "") -> dict[int, ResponseSpec]:
    """A route's documented answers: its success with an example, then every error code
    it declares, grouped by the status the registry gives each, with one example body
    per code. The drive test (tests/services/lobby/test_declared_codes.py) fails when a
    route answers a code it does not declare here."""
    out = {status: ResponseSpec(body, description=description or "Success",
                                examples=[Example(value=example)])}
    by_status: dict[int, list[ErrorCode]] = {}
    for code in dict.fromkeys(codes):
        entry = lookup(code)
        by_status.setdefault(entry.status, []).append(entry)
    for answer, entries in sorted(by_status.items()):
        text = "; ".join(f"`{e.code}`: {e.meaning}" for e in entries)
        out[answer] = ResponseSpec(ApiError, description=text, examples=[
            Example(summary=e.code, value={"code": e.code, "message": e.message})
            for e in entries])
    return out


def declared(document: dict[str, Any]) -> dict[tuple[str, str], dict[str, int]]:
    """(METHOD, path) -> {code: status} as an OpenAPI document built by ``answers``
    declares them: what a client reads, and what the drive test checks answers against."""
    out: dict[tuple[str, str], dict[str, int]] = {}
    for path, item in document.get("paths", {}).items():
        for method, op in item.items():
            if not isinstance(op, dict) or "responses" not in op:
                continue
            codes = out.setdefault((method.upper(), path), {})
            for status, response in op["responses"].items():
                for media in response.get("content", {}).values():
                    for example in (media.get("examples") or {}).values():
                        value = example.get("value")
                        if int(status) >= 400 and isinstance(value, dict) and "code" in value:
                            codes[value["code"]] = int(status)
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


__all__ = ["BEARER", "GAME_REFUSALS", "SIGNED_IN", "STARTS", "STORE", "answers", "config",
           "declared", "routes"]
