"""Typed rule errors: a stable code for programs, a plain message for people.

``decide`` raises ``RuleError`` and, being pure, has applied nothing. Messages
name only what the acting seat may know: never another seat's cards.
"""

from __future__ import annotations

from schemas.errors import REGISTRY, RULE_CODES


class RuleError(Exception):
    __slots__ = ("code", "message")

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


# The stable codes, for clients that switch on them: their meanings and statuses live in
# the one registry of every client-facing code (schemas/errors/__init__.py).
CODES = {code: REGISTRY[code].meaning for code in RULE_CODES}
