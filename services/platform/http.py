"""The HTTP side every service has: health, readiness, metrics; plus its own routes.

``/healthz`` answers 200 while the process can serve at all, and 503 once its
NATS connection is closed for good (liveness: restart me if this fails; a
client that reconnects is not closed, one the server threw out for a protocol
error is, and would never carry a message again). ``/readyz`` answers 200
only while Postgres and NATS answer and every background worker runs
(readiness: send me work). ``/metrics`` is the Prometheus text format; each scrape
runs the readiness checks too, so ``spades_live`` and ``spades_ready`` say there what
the two probes would answer (the alerts of deploy/prometheus/ read them).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import prometheus_client
from litestar import Litestar, MediaType, Request, Response, get
from litestar.exceptions import ClientException, HTTPException, ValidationException
from litestar.openapi import OpenAPIConfig
from litestar.types import ControllerRouterHandler

from schemas.api import ApiError
from schemas.errors import status_of
from services.platform import db, logs, version

Check = Callable[[], Awaitable[bool]]
_log = logs.get("http")

LIVE = prometheus_client.Gauge("spades_live", "1 while the service can serve at all "
                               "(/healthz answers 200), else 0")
READY = prometheus_client.Gauge("spades_ready", "1 while a readiness check passes "
                                "(/readyz answers 200 when all do), by check", ["check"])
FAILED = prometheus_client.Counter("spades_http_internal_errors_total",
                                   "Requests answered 500 internal_error (each logged as "
                                   "request_failed with its request id)")


class BodyRequest(Request[Any, Any, Any]):
    """A request whose JSON body, when it cannot be read, is the client's error (400).

    Litestar turns most malformed JSON into a 400 but lets invalid UTF-8 and nesting
    deeper than the decoder's recursion limit escape as a 500.
    """

    async def json(self) -> Any:
        try:
            return await super().json()
        except UnicodeDecodeError:
            raise ClientException("the body is not UTF-8") from None
        except RecursionError:
            raise ClientException("the body nests too deeply") from None


def invalid(_: Request[Any, Any, Any], exc: ValidationException) -> Response[ApiError]:
    extra = exc.extra if isinstance(exc.extra, list) else []
    detail = "; ".join(str(e.get("message", "")) + (f" ({e['key']})" if e.get("key") else "")
                       for e in extra if isinstance(e, dict))
    return Response(ApiError(code="bad_request", message=detail or str(exc.detail)),
                    status_code=status_of("bad_request"))


def http_error(_: Request[Any, Any, Any], exc: HTTPException) -> Response[ApiError]:
    """Litestar's own refusals (no such route, wrong method) in the same shape as ours."""
    codes = {400: "bad_request", 404: "not_found", 405: "method_not_allowed",
             413: "body_too_large"}
    return Response(ApiError(code=codes.get(exc.status_code, "http_error"),
                             message=str(exc.detail)), status_code=exc.status_code)


def database_away(request: Request[Any, Any, Any], exc: Exception) -> Response[ApiError]:
    """Postgres is away (stopped, restarting): "not now, try again", on any route."""
    _log.warning("database_away", method=request.method, path=request.url.path,
                 error=repr(exc))
    return Response(ApiError(code="unavailable", message="the store is not answering now; "
                             "try again shortly"), status_code=status_of("unavailable"),
                    headers={"retry-after": str(db.RETRY_AFTER_SECONDS)})


def internal_error(request: Request[Any, Any, Any], exc: Exception) -> Response[ApiError]:
    """What no other handler claimed: logged with a request id that the answer repeats,
    so a client's report finds the stack trace, which never leaves the process."""
    request_id = uuid.uuid4().hex
    FAILED.inc()
    _log.error("request_failed", request_id=request_id, method=request.method,
               path=request.url.path, error=repr(exc), exc_info=exc)
    return Response(ApiError(code="internal_error",
                             message=f"internal error; request id {request_id}"),
                    status_code=500, headers={"x-request-id": request_id})


def create_app(service: str, checks: dict[str, Check], live: Callable[[], bool],
               routes: Sequence[ControllerRouterHandler] = (), *,
               openapi: OpenAPIConfig | None = None,
               on_shutdown: Sequence[Callable[[], Awaitable[None]]] = (),
               exception_handlers: dict[Any, Any] | None = None) -> Litestar:
    @get("/healthz", include_in_schema=False, sync_to_thread=False)
    def healthz() -> Response[dict[str, str]]:
        ok = live()
        return Response({"status": "ok" if ok else "dead", "service": service,
                         "version": version()},
                        status_code=200 if ok else 503)

    LIVE.set_function(lambda: float(live()))

    @get("/readyz", include_in_schema=False)
    async def readyz() -> Response[dict[str, Any]]:
        status = await _readiness(checks)
        ready = all(status.values())
        return Response({"ready": ready, "checks": status}, status_code=200 if ready else 503)

    @get("/metrics", include_in_schema=False, media_type=MediaType.TEXT)
    async def metrics() -> Response[bytes]:
        await _readiness(checks)
        return Response(prometheus_client.generate_latest(),
                        media_type=prometheus_client.CONTENT_TYPE_LATEST)

    return Litestar(
        route_handlers=[healthz, readyz, metrics, *routes],
        openapi_config=openapi,  # only a public API documents itself
        on_shutdown=list(on_shutdown),
        exception_handlers={Exception: internal_error, HTTPException: http_error,
                            ValidationException: invalid,
                            **dict.fromkeys(db.AWAY, database_away),
                            **(exception_handlers or {})},
        request_class=BodyRequest,
        debug=False,
        logging_config=None,  # structlog writes the service's logs; no second format
    )


async def _readiness(checks: dict[str, Check]) -> dict[str, bool]:
    """Every check's verdict, also set on ``spades_ready``."""
    results = await asyncio.gather(*(_run(c) for c in checks.values()))
    for name, ok in zip(checks, results, strict=True):
        READY.labels(name).set(ok)
    return dict(zip(checks, results, strict=True))


async def _run(check: Check) -> bool:
    try:
        return bool(await asyncio.wait_for(check(), 2.0))
    except Exception:
        return False


__all__ = ["HTTPException", "create_app"]
