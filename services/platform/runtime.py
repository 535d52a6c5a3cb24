"""One service process from start to SIGTERM.

Start-up order: logs, Postgres pool, migrations (under the advisory lock),
NATS, JetStream streams asserted, the service's own parts, the status endpoint
on the NATS services API, then HTTP. Shutdown reverses it: stop taking HTTP
requests, stop NATS endpoints, let consumers and the relay finish the message
in hand, drain NATS, close the pool.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import signal
import socket
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

import asyncpg
import uvicorn
from litestar.openapi import OpenAPIConfig
from litestar.types import ControllerRouterHandler

from schemas import subjects
from schemas.bus import StatusReply, StatusRequest
from services.platform import bus, connection, db, logs, migrations, tracing, version
from services.platform.busclient import BusClient
from services.platform.http import create_app
from services.platform.settings import Settings, StartupError
from services.platform.wsprotocol import WebSocketProtocol


class Worker(Protocol):
    async def stop(self) -> None: ...

    @property
    def running(self) -> bool: ...


@dataclass
class Runtime:
    """What a running service holds; handed to the service's own set-up."""

    service: str
    settings: Settings
    pool: asyncpg.Pool
    client: BusClient  # the bus in services' terms: typed bodies, the platform's errors
    names: subjects.Names
    workers: list[Worker] = field(default_factory=list)
    routes: list[ControllerRouterHandler] = field(default_factory=list)
    endpoints: list[bus.Endpoint] = field(default_factory=list)
    exception_handlers: dict[Any, Any] = field(default_factory=dict)
    openapi: OpenAPIConfig | None = None  # a public API's document and its viewer
    ws_max_size: int = 16 * 1024 * 1024  # bytes uvicorn reads of one WebSocket message
    # The service's own migrations, for further databases it migrates the same way.
    schema: migrations.MigrationSet | None = None
    # Run on SIGTERM once readiness has said 503 for ``drain_seconds``, before the
    # server stops: the service hands its work on (a gateway moves its sockets).
    drains: list[Callable[[], Awaitable[None]]] = field(default_factory=list)
    draining: bool = False

    def game_events(self) -> bus.StreamSpec:
        return bus.StreamSpec(self.names.game_events_stream, (self.names.game_events_all,),
                              duplicate_window=self.settings.js_duplicate_window_seconds,
                              replicas=self.settings.js_replicas)

    def consumer(self, durable: str, filter_subject: str) -> bus.ConsumerSpec:
        return bus.ConsumerSpec(self.names.game_events_stream, durable, filter_subject,
                                ack_wait=self.settings.js_ack_wait_seconds,
                                max_deliver=self.settings.js_max_deliver)


Setup = Callable[[Runtime], Awaitable[None]]


class _Server(uvicorn.Server):
    """Uvicorn, minus its habit of re-raising SIGTERM once it has stopped serving.

    That re-raise would kill the process before consumers finish the message
    in hand, NATS drains and the pool closes; `run` owns the signals instead.
    """

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


class _Stopping:
    """SIGTERM drains: readiness turns 503 at once, the service goes on serving for
    ``drain_seconds`` (while load balancers take it out), runs its ``drains``, and
    only then stops. A second SIGTERM, or SIGINT (a person at ``spades dev``), stops
    at once; the shutdown that follows is the same either way."""

    def __init__(self, rt: Runtime, server: uvicorn.Server, log: Any) -> None:
        self.rt, self.server, self.log = rt, server, log
        self.task: asyncio.Task[None] | None = None

    def listen(self) -> None:
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGTERM, self.term)
        loop.add_signal_handler(signal.SIGINT, self.now, signal.SIGINT)

    def term(self) -> None:
        if self.task is None:
            self.task = asyncio.create_task(self.drain())
        else:
            self.now(signal.SIGTERM)

    def now(self, sig: int) -> None:
        self.rt.draining = True
        self.server.handle_exit(sig, None)

    async def drain(self) -> None:
        settings = self.rt.settings
        self.rt.draining = True
        self.log.info("draining", seconds=settings.drain_seconds, hooks=len(self.rt.drains))
        await asyncio.sleep(settings.drain_seconds)
        for hook in self.rt.drains:
            try:
                await asyncio.wait_for(hook(), settings.shutdown_grace_seconds)
            except Exception as exc:  # stopping goes on: what is left, the shutdown ends
                self.log.warning("drain_failed", error=repr(exc))
        self.log.info("drained")
        self.server.handle_exit(signal.SIGTERM, None)


def bind(host: str, port: int) -> socket.socket:
    # IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY on accepted sockets only when the
    # listening socket names TCP, and without it a WebSocket frame written right after
    # another waits ~40 ms for the client's delayed ACK.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise StartupError(f"HTTP port {port} on {host} is not available: {exc.strerror}"
                           ) from None
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def _quiet_collector() -> None:
    """What start-up built (modules, the app and its routes: most of a service's heap)
    is collected once and frozen out of the cycle collector's passes, and the youngest
    generation is collected after 10,000 new objects instead of 700. Under load the
    collector took about 5% of a gateway's CPU and 3-5% of a game worker's, its full
    passes mostly reading start-up's objects again; after this, under 2% and 1%."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(10_000, 10, 10)


async def run(service: str, settings: Settings, setup: Setup,
              schema: migrations.MigrationSet) -> None:
    """Serve one service until SIGTERM. ``schema`` is the service's own migrations: the
    caller knows the services, the runtime only runs one."""
    log = _observed(service, settings)
    sock = bind(settings.http_host, settings.http_port)
    try:
        pool = await db.create_pool(settings.database_url, service,
                                    min_size=settings.db_pool_min, max_size=settings.db_pool_max)
    except db.DatabaseUnavailable as exc:
        sock.close()
        raise StartupError(str(exc)) from None
    try:
        if settings.migrate_on_start:
            async with pool.acquire() as conn:
                applied = await migrations.apply(conn, [schema])
            if applied:
                log.info("migrated", applied=applied)
        nc = await connection.connect(settings.nats_url, f"spades-{service}-{settings.instance_id}")
    except (migrations.MigrationError, connection.BusUnavailable) as exc:
        await pool.close()
        sock.close()
        raise StartupError(str(exc)) from None
    names = subjects.Names(settings.nats_prefix)
    rt = Runtime(service, settings, pool, BusClient(nc), names, schema=schema)
    micro: Any = None
    try:
        await bus.ensure_stream(rt.client, rt.game_events())
        await _watch_standbys(rt)
        await setup(rt)

        async def status(req: StatusRequest) -> StatusReply:
            return StatusReply(service=service, instance=settings.instance_id, version=version(),
                               echo=req.echo)

        micro = await bus.serve(nc, service=service, version=version(),
                                group=names.service_group(service), instance=settings.instance_id,
                                endpoints=[bus.Endpoint("status", StatusRequest, status),
                                           *rt.endpoints])
        app = create_app(service, _checks(rt), lambda: not nc.is_closed, rt.routes,
                         openapi=rt.openapi, exception_handlers=rt.exception_handlers)
        config = uvicorn.Config(app, log_config=None, access_log=False, lifespan="on",
                                timeout_graceful_shutdown=int(settings.shutdown_grace_seconds),
                                ws_max_size=rt.ws_max_size, ws=WebSocketProtocol)
        server = _Server(config)
        _Stopping(rt, server, log).listen()
        log.info("started", http=f"http://{settings.http_host}:{settings.http_port}")
        _quiet_collector()
        await server.serve(sockets=[sock])  # returns after SIGTERM or SIGINT
        log.info("stopping")
    except bus.BusConfigError as exc:
        raise StartupError(str(exc)) from None
    finally:
        await _shutdown(rt, micro, settings.shutdown_grace_seconds)
        sock.close()
        log.info("stopped")
        tracing.shutdown()  # the spans still batched are exported


def _observed(service: str, settings: Settings) -> Any:
    """The process's logs and, when an exporter is set, its traces; the service's logger."""
    logs.configure(service, settings.instance_id, settings.log_level)
    tracing.configure(service, settings.instance_id, version())
    return logs.get(service)


async def _watch_standbys(rt: Runtime) -> None:
    """Every service samples its Postgres standbys' lag (``db.replication``): the copies
    of the same service all report it, so a dashboard shows it while any one runs."""
    chore = db.replication(rt.pool)
    await chore.start()
    rt.workers.append(chore)


async def _shutdown(rt: Runtime, micro: Any, grace: float) -> None:
    if micro is not None:
        with contextlib.suppress(Exception):
            await micro.stop()
    with contextlib.suppress(Exception):
        await asyncio.wait_for(asyncio.gather(*(w.stop() for w in reversed(rt.workers))), grace)
    with contextlib.suppress(Exception):
        await asyncio.wait_for(rt.client.nc.drain(), grace)
    with contextlib.suppress(Exception):
        await asyncio.wait_for(rt.pool.close(), grace)


def _checks(rt: Runtime) -> dict[str, Callable[[], Awaitable[bool]]]:
    async def postgres() -> bool:
        return bool(await rt.pool.fetchval("SELECT true"))

    async def nats() -> bool:
        nc = rt.client.nc  # connected, and still reading what it is sent
        return bool(nc.is_connected) and nc.reading

    async def workers() -> bool:
        return all(w.running for w in rt.workers)

    async def accepting() -> bool:  # false from SIGTERM on: no new work comes here
        return not rt.draining

    return {"postgres": postgres, "nats": nats, "workers": workers, "accepting": accepting}
