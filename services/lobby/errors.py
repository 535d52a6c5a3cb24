"""The lobby's one error type: a stable code, a plain message, and the HTTP status it maps to.

Service functions raise it; the HTTP layer turns it into a status and an
``ApiError`` body, the WebSocket layer into an ``error`` frame, each in one place.
"""

from __future__ import annotations


class LobbyError(Exception):
    def __init__(self, status: int, code: str, message: str, *,
                 retry_after: int | None = None, until: int = 0) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message
        self.retry_after = retry_after  # seconds, for a 429 or 503: sent as Retry-After
        self.until = until  # ms: when a cooldown ends (queue_cooldown), else 0
