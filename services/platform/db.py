"""The asyncpg pool. Only store modules use it; services see store functions."""

from __future__ import annotations

import asyncpg


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
    return pool


def _safe(url: str) -> str:
    """The URL without its password, for error lines."""
    if "@" not in url or "://" not in url:
        return url
    scheme, rest = url.split("://", 1)
    creds, host = rest.rsplit("@", 1)
    user = creds.split(":", 1)[0]
    return f"{scheme}://{user}@{host}"
