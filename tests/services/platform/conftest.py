"""What the platform's tests share: a bus client of their own."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from services.platform import connection
from services.platform.busclient import BusClient


@pytest.fixture
async def client(nats_url: str, request: pytest.FixtureRequest) -> AsyncIterator[BusClient]:
    """A NATS connection named after the test's module (``test_outbox`` is
    ``outbox-test``), as a service's ``BusClient``."""
    name = request.module.__name__.rsplit(".", 1)[-1].removeprefix("test_")
    nc = await connection.connect(nats_url, f"{name}-test")
    yield BusClient(nc)
    await nc.close()
