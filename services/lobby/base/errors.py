"""The lobby's one error type: a stable code from the registry and a plain message.

Service functions raise ``LobbyError(code, message, **fields)`` and never name an HTTP
status: the status, and the fields a code may carry, come from ``schemas/errors/__init__.py``.
The HTTP layer turns it into a status and an ``ApiError`` body, the WebSocket layer
into an ``error`` frame, each in one place.
"""

from __future__ import annotations

from schemas.errors import RETRY_AFTER, UNTIL, lookup


class LobbyError(Exception):
    def __init__(self, code: str, message: str, **fields: int) -> None:
        entry = lookup(code)  # UnknownCode for a code the registry does not list
        extra = set(fields) - set(entry.fields)
        if extra:
            raise TypeError(f"error code {code!r} carries no {sorted(extra)}")
        super().__init__(message)
        self.status, self.code, self.message = entry.status, code, message
        self.retry_after = fields.get(RETRY_AFTER)  # seconds: sent as Retry-After
        self.until = fields.get(UNTIL, 0)  # ms: when a cooldown ends (queue_cooldown), else 0
