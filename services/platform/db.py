"""The asyncpg pool. Only store modules use it; services see store functions.

What Postgres looks like from a service is reported here too, as Prometheus metrics on
its ``/metrics`` (docs/operators.md, "Dashboards and alerts"): its pools' use, read when
scraped from every pool the process opened (connections busy, idle, and the most it may
open, summed by the schema each serves: a game worker over several databases has one
pool per database), and its standbys' lag, sampled every few seconds from
``pg_stat_replication`` on the primary, one series per standby (the lag columns need the
``pg_monitor`` role or a superuser; a server with no standby has no series).
"""

from __future__ import annotations

from collections.abc import Iterator

import asyncpg
from prometheus_client import REGISTRY, Gauge
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from services.platform.periodic import Periodic


class DatabaseUnavailable(RuntimeError):
    pass


# What a query or a pool's acquire raises while Postgres is away (stopped, restarting,
# unreachable): not a bug but "not now". The HTTP layer answers these with 503
# ``unavailable`` and a Retry-After, the socket with an ``unavailable`` error frame.
AWAY: tuple[type[Exception], ...] = (
    DatabaseUnavailable,
    ConnectionError,  # refused or reset: the server is down
    TimeoutError,  # no connection within the pool's connect timeout
    asyncpg.PostgresConnectionError,  # the server dropped or refused the session
    asyncpg.exceptions.OperatorInterventionError,  # shutting down, starting up, crashed
    asyncpg.exceptions.ConnectionDoesNotExistError,  # the connection died mid-query
    # Of a primary and its standbys (a multi-host URL), none takes writes: a failover
    # under way, its standby not yet promoted.
    asyncpg.exceptions.TargetServerAttributeNotMatched,
)
# How long a client should wait before trying again (a restart takes a few seconds).
RETRY_AFTER_SECONDS = 5


async def keep_session(conn: asyncpg.Connection) -> None:
    """Nothing to reset when a connection goes back to the pool.

    asyncpg's default reset sends a query on every release (unlock advisory
    locks, close cursors, UNLISTEN, RESET ALL): a round trip and a transaction
    that cost about a third of a single-row write. The services leave no
    session state behind to reset: settings are ``SET LOCAL``, advisory locks
    are transaction-scoped, cursors live inside transactions, and the one
    ``LISTEN`` (the outbox relay's) is removed before its connection is
    released. asyncpg still rolls back a transaction left open before calling
    this. Code that needs session state takes its own connection, not the pool's.
    """


async def create_pool(url: str, schema: str, *, min_size: int = 1, max_size: int = 10,
                      timeout: float = 10.0) -> asyncpg.Pool:
    """A pool whose connections see the service's own schema first.

    The search path is the service's schema, so its SQL names its own tables
    unqualified and can never reach another service's tables by accident.
    """
    try:
        pool = await asyncpg.create_pool(
            url, min_size=min_size, max_size=max_size, timeout=timeout, reset=keep_session,
            server_settings={"search_path": f"{schema},public",
                             "application_name": f"spades-{schema}"},
        )
    except (OSError, asyncpg.PostgresError, TimeoutError,
            asyncpg.exceptions.TargetServerAttributeNotMatched) as exc:
        raise DatabaseUnavailable(f"cannot reach PostgreSQL at {_safe(url)}: {exc}") from None
    assert pool is not None
    _pools.append((schema, pool))
    return pool


def _safe(url: str) -> str:
    """The URL without its password, for error lines."""
    if "@" not in url or "://" not in url:
        return url
    scheme, rest = url.split("://", 1)
    creds, host = rest.rsplit("@", 1)
    user = creds.split(":", 1)[0]
    return f"{scheme}://{user}@{host}"


# --- What Postgres looks like from the service (metrics) ---------------------------------

REPLICATION_SAMPLE_SECONDS = 15.0

LAG_SECONDS = Gauge("spades_postgres_replication_lag_seconds",
                    "How far a standby's replay is behind the primary, in time", ["standby"])
LAG_BYTES = Gauge("spades_postgres_replication_lag_bytes",
                  "How far a standby's replay is behind the primary, in WAL bytes", ["standby"])
STANDBYS = Gauge("spades_postgres_standbys", "Standbys connected to the primary")
SYNC_STANDBYS = Gauge("spades_postgres_sync_standbys",
                      "Standbys the primary waits for on commit (synchronous)")

_pools: list[tuple[str, asyncpg.Pool]] = []


class _PoolUse(Collector):
    """The pools' use, read at each scrape: nothing to keep up to date in between."""

    def collect(self) -> Iterator[GaugeMetricFamily]:
        _pools[:] = [(s, p) for s, p in _pools if not p.is_closing()]
        busy = GaugeMetricFamily("spades_db_pool_connections",
                                 "Postgres connections of the service's pools, busy or idle",
                                 labels=["pool", "state"])
        most = GaugeMetricFamily("spades_db_pool_max_connections",
                                 "The most connections the service's pools may open",
                                 labels=["pool"])
        totals: dict[str, list[int]] = {}
        for schema, pool in _pools:
            t = totals.setdefault(schema, [0, 0, 0])
            idle = pool.get_idle_size()
            t[0] += pool.get_size() - idle
            t[1] += idle
            t[2] += pool.get_max_size()
        for schema, (in_use, idle, max_size) in totals.items():
            busy.add_metric([schema, "busy"], in_use)
            busy.add_metric([schema, "idle"], idle)
            most.add_metric([schema], max_size)
        yield busy
        yield most


REGISTRY.register(_PoolUse())

_STANDBYS_SQL = """
SELECT application_name || '@' || COALESCE(host(client_addr), 'local') AS standby, sync_state,
       COALESCE(EXTRACT(EPOCH FROM replay_lag), 0)::float8 AS seconds,
       COALESCE(pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn), 0)::float8 AS bytes
  FROM pg_stat_replication WHERE NOT pg_is_in_recovery()
"""


def replication(pool: asyncpg.Pool) -> Periodic:
    """A chore that samples the standbys of ``pool``'s server into the gauges above."""

    async def sample() -> int:
        rows = await pool.fetch(_STANDBYS_SQL)
        for gauge in (LAG_SECONDS, LAG_BYTES):
            gauge.clear()  # a standby that left has no series, not its last value
        for r in rows:
            LAG_SECONDS.labels(r["standby"]).set(r["seconds"])
            LAG_BYTES.labels(r["standby"]).set(r["bytes"])
        STANDBYS.set(len(rows))
        SYNC_STANDBYS.set(sum(r["sync_state"] in ("sync", "quorum") for r in rows))
        return 0

    return Periodic("replication", REPLICATION_SAMPLE_SECONDS, sample)

