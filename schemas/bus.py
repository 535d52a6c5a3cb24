"""Messages on the bus that are not game commands or events themselves.

Encoded with msgpack; every field is a plain value, so any language can read them.
"""

from __future__ import annotations

import msgspec


class EventEnvelope(msgspec.Struct, frozen=True, array_like=True):
    """A stored event as published to JetStream by the outbox.

    ``body`` is the event exactly as stored (msgpack of the tagged Struct at
    ``schema_version``); consumers decode and upcast it with the event registry.
    """

    stream: str
    version: int
    position: int
    type: str
    schema_version: int
    event_id: str
    occurred_at_ms: int
    correlation_id: str | None
    causation_id: str | None
    body: bytes


class StatusRequest(msgspec.Struct, frozen=True):
    """Ask one copy of a service who it is; answers prove the request path works."""

    echo: str = ""


class StatusReply(msgspec.Struct, frozen=True):
    service: str
    instance: str
    version: str
    echo: str = ""
