"""What the client raises, and the error codes it sends a command again on."""

from __future__ import annotations

from schemas import ws

# Codes that mean "not applied, send the same command_id again shortly" (docs/protocol.md).
RETRY_CODES = frozenset({"game_unavailable", "busy", "not_owner", "unavailable", "conflict",
                         "rate_limited"})


class ApiFailure(Exception):
    """An HTTP error answer: its status and the body's stable ``code`` and ``message``."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status, self.code, self.message = status, code, message


class CommandRejected(Exception):
    """A game command answered with an ``error`` frame that retrying cannot fix."""

    def __init__(self, error: ws.Error) -> None:
        super().__init__(f"{error.code}: {error.message}")
        self.error = error
