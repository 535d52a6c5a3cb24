"""Typed tournament errors: a stable code for programs, a plain message for people.

``decide`` raises ``TournamentError`` and, being pure, has appended nothing. It is
the engine's ``RuleError`` (code and message) under the tournament's name, so the
one place that maps rule errors to replies maps these too.
"""

from __future__ import annotations

from engine.errors import RuleError
from schemas.errors import REGISTRY, TOURNAMENT_CODES


class TournamentError(RuleError):
    __slots__ = ()


# The stable codes, for clients that switch on them: their meanings and statuses live in
# the one registry of every client-facing code (schemas/errors/__init__.py).
CODES = {code: REGISTRY[code].meaning for code in TOURNAMENT_CODES}
