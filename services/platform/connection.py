"""Connecting to NATS: failing fast at start-up, riding out a lost server once up.

A service that cannot reach the broker when it starts says so in one line and
exits; one that loses it later reconnects forever (to another node of a cluster
within seconds), since its games and consumers must outlive a broker restart.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from typing import Any

import nats
import nats.aio.client
import nats.errors
from nats.aio.client import Client

from services.platform import logs

_log = logs.get("bus")


class BusUnavailable(RuntimeError):
    pass


_SPACE = re.compile(r"\s")  # what ``str.isspace`` calls a space, anywhere in a name


class NatsClient(nats.aio.client.Client):
    """nats-py's client, reading message headers the way it does, only faster.

    Every game event reaches every gateway that follows its game with its
    ``Nats-Msg-Id`` header, and the library's own reading looks at each character
    of each header name through a generator: a few per cent of a gateway's CPU in
    profiles. This reads the same lines into the same names and values
    (``tests/services/platform/test_headers.py`` holds the two to each other)."""

    @staticmethod
    def _parse_header_lines(raw: bytes) -> dict[str, str]:
        out: dict[str, str] = {}
        for line in raw.split(b"\r\n"):
            name, sep, value = line.partition(b":")
            if not sep:
                continue
            try:
                key = name.strip().decode("ascii")
            except UnicodeDecodeError:
                continue
            if _SPACE.search(key) is None:
                out[key] = value.strip().decode("utf-8", "replace")
        return out


# A server that stops answering without closing the connection (paused, or cut off
# by the network) is left after this many unanswered pings this far apart: the client
# then moves to another node of the cluster within a few seconds, under the shortest
# turn clock, instead of the library's default of minutes.
PING_SECONDS = 1.0
PINGS_OUTSTANDING = 1
RECONNECT_TIMEOUT = 1.0


async def connect(url: str, name: str, *, timeout: float = 3.0) -> Client:
    """Connect, failing fast at start-up but reconnecting forever once up."""
    servers = [u.strip() for u in url.split(",") if u.strip()]
    connected = False

    errors: list[Exception] = []

    async def on_error(exc: Exception) -> None:
        if connected:
            _log.warning("nats_error", error=str(exc))
        else:
            errors.append(exc)

    async def on_closed() -> None:
        # Closed, not reconnecting: the server threw us out (a protocol error) or we
        # gave up. /healthz now fails so that an orchestrator restarts the process.
        if connected and nc.last_error is not None:  # not our own close or drain
            _log.error("nats_closed", error=repr(nc.last_error))

    try:
        # At start-up, try each server a couple of times, then say which URL failed.
        nc = await _connected(NatsClient(), servers, name=name, connect_timeout=timeout,
                              allow_reconnect=True, max_reconnect_attempts=2,
                              reconnect_time_wait=0.3, error_cb=on_error,
                              closed_cb=on_closed, ping_interval=PING_SECONDS,
                              max_outstanding_pings=PINGS_OUTSTANDING)
    except (OSError, nats.errors.Error, TimeoutError) as exc:
        cause = errors[-1] if errors else exc
        reason = getattr(cause, "strerror", None) or str(cause) or type(cause).__name__
        raise BusUnavailable(f"cannot reach NATS at {url}: {reason}") from None
    # Up: from now on ride out broker restarts instead of dying.
    nc.options["allow_reconnect"] = True
    nc.options["max_reconnect_attempts"] = -1
    nc.options["reconnect_time_wait"] = 0.5
    # A paused node still completes the TCP handshake and then says nothing: give up on
    # it soon and try the next node.
    nc.options["connect_timeout"] = min(timeout, RECONNECT_TIMEOUT)
    connected = True
    return nc


def on_reconnected(nc: Client, callback: Callable[[], Awaitable[None]]) -> None:
    """Run ``callback`` too each time ``nc`` is connected again: what a plain
    subscription missed while the connection was away is to be asked for then."""
    before = nc._reconnected_cb

    async def both() -> None:
        if before is not None:
            await before()
        await callback()

    nc._reconnected_cb = both


async def connect_once(url: str, name: str, timeout: float = 3.0) -> Client:
    """Like `connect`, but gives up after one round of servers: for CLI checks."""
    servers = [u.strip() for u in url.split(",") if u.strip()]
    errors: list[Exception] = []

    async def on_error(exc: Exception) -> None:
        errors.append(exc)

    try:
        return await asyncio.wait_for(
            _connected(NatsClient(), servers, name=name, connect_timeout=timeout,
                       allow_reconnect=False, max_reconnect_attempts=0, error_cb=on_error),
            timeout * 2)
    except (OSError, nats.errors.Error, TimeoutError) as exc:
        cause = errors[-1] if errors else exc
        reason = getattr(cause, "strerror", None) or str(cause) or type(cause).__name__
        raise BusUnavailable(f"cannot reach NATS at {url}: {reason}") from None


async def _connected(nc: Client, servers: list[str], **options: Any) -> Client:
    await nc.connect(servers, **options)
    return nc


async def probe(url: str, name: str, timeout: float = 1.0) -> None:
    """``BusUnavailable`` unless NATS at ``url`` answers: a check before relying on it."""
    nc = await connect_once(url, name, timeout=timeout)
    await nc.close()
