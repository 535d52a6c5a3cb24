"""The HTTP side every service has: health, readiness, metrics; plus its own routes.

``/healthz`` answers while the process can serve at all (liveness: restart me
if this fails). ``/readyz`` answers 200 only while Postgres and NATS answer and
every background worker runs (readiness: send me work). ``/metrics`` is the
Prometheus text format.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import prometheus_client
from litestar import Litestar, MediaType, Response, get
from litestar.exceptions import HTTPException
from litestar.openapi import OpenAPIConfig
from litestar.types import ControllerRouterHandler

Check = Callable[[], Awaitable[bool]]


def create_app(service: str, checks: dict[str, Check],
               routes: Sequence[ControllerRouterHandler] = (), *,
               openapi: OpenAPIConfig | None = None,
               on_shutdown: Sequence[Callable[[], Awaitable[None]]] = (),
               exception_handlers: dict[Any, Any] | None = None) -> Litestar:
    @get("/healthz", include_in_schema=False, sync_to_thread=False)
    def healthz() -> dict[str, str]:
        return {"status": "ok", "service": service}

    @get("/readyz", include_in_schema=False)
    async def readyz() -> Response[dict[str, Any]]:
        results = await asyncio.gather(*(_run(c) for c in checks.values()))
        status = dict(zip(checks, results, strict=True))
        ready = all(results)
        return Response({"ready": ready, "checks": status}, status_code=200 if ready else 503)

    @get("/metrics", include_in_schema=False, media_type=MediaType.TEXT, sync_to_thread=False)
    def metrics() -> Response[bytes]:
        return Response(prometheus_client.generate_latest(),
                        media_type=prometheus_client.CONTENT_TYPE_LATEST)

    return Litestar(
        route_handlers=[healthz, readyz, metrics, *routes],
        openapi_config=openapi,  # only a public API documents itself
        on_shutdown=list(on_shutdown),
        exception_handlers=exception_handlers or {},
        debug=False,
        logging_config=None,  # structlog writes the service's logs; no second format
    )


async def _run(check: Check) -> bool:
    try:
        return bool(await asyncio.wait_for(check(), 2.0))
    except Exception:
        return False


__all__ = ["HTTPException", "create_app"]
