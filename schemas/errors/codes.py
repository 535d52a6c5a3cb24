"""Reply codes of the platform itself (the rules' own codes are in engine/errors.py).

A ``GameReply`` that is not ok carries either a rule code or one of these; a
client sees them in error frames. The retryable ones mean "not now, nothing was
applied": send the same command id again.
"""

from __future__ import annotations

BUSY = "busy"  # the game's inbox is full
NOT_OWNER = "not_owner"  # this worker does not run the game (any more)
CONFLICT = "conflict"  # the game moved on under the command
UNAVAILABLE = "unavailable"  # the store could not be reached
GAME_UNAVAILABLE = "game_unavailable"  # the lobby: no game worker answered
REJECTED = "rejected"  # the lobby: the game refused a command without a code

NOT_ALLOWED = "not_allowed"  # a command only the platform sends
BAD_REQUEST = "bad_request"
GAME_EXISTS = "game_exists"  # another command created a game with this id
# A command id sent again with another command: answering it with the first command's
# result would tell the client that a move it did not make was played.
COMMAND_ID_REUSED = "command_id_reused"

# Answers from a game worker worth repeating with the same command id.
RETRYABLE = frozenset({BUSY, NOT_OWNER, CONFLICT, UNAVAILABLE})
# The same, as a gateway sees them: also when no worker answered at all.
TRANSIENT = RETRYABLE | {GAME_UNAVAILABLE}

# The lobby's codes that its own code compares (the registry, ``schemas/errors/__init__.py``,
# says what each means and its HTTP status; a test holds every name here registered).
TABLE_STARTED = "table_started"
MATCH_CLOSED = "match_closed"
MATCH_NOT_FOUND = "match_not_found"
RATINGS_UNAVAILABLE = "ratings_unavailable"
TOURNAMENTS_UNAVAILABLE = "tournaments_unavailable"
