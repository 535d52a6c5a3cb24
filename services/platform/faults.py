"""Named crash points on the write path, for tests that kill the process on purpose.

A test sets ``SPADES_FAULT`` to one name in a child process; the process exits
right there with ``os._exit`` (no cleanup, no flush), which is what a power cut
or OOM kill looks like to Postgres and NATS. A point that says what it is working on
(``where``: a tournament's name) may be armed for that alone, ``name:where``, so that
other work the process finds in the database (what earlier tests left there) passes
the point unharmed.
"""

from __future__ import annotations

import os
import sys

BEFORE_COMMIT = "before_commit"
AFTER_COMMIT_BEFORE_PUBLISH = "after_commit_before_publish"
AFTER_COMMIT_BEFORE_REPLY = "after_commit_before_reply"
AFTER_PUBLISH_BEFORE_MARK = "after_publish_before_mark"
CONSUMER_AFTER_COMMIT_BEFORE_ACK = "consumer_after_commit_before_ack"
MATCH_RECORDED_BEFORE_GAME = "match_recorded_before_game"  # the lobby's open_match
# The tournament scheduler: the lobby opened a round's matches, nothing recorded yet.
MATCHES_OPENED_BEFORE_RECORD = "matches_opened_before_record"
ALL = frozenset({BEFORE_COMMIT, AFTER_COMMIT_BEFORE_PUBLISH, AFTER_COMMIT_BEFORE_REPLY,
                 AFTER_PUBLISH_BEFORE_MARK, CONSUMER_AFTER_COMMIT_BEFORE_ACK,
                 MATCH_RECORDED_BEFORE_GAME, MATCHES_OPENED_BEFORE_RECORD})
EXIT_CODE = 86


def armed(name: str) -> bool:
    return os.environ.get("SPADES_FAULT") == name


def hit(name: str, where: str = "") -> None:
    assert name in ALL, name
    if os.environ.get("SPADES_FAULT") in (name, f"{name}:{where}"):
        sys.stderr.write(f"fault point {name} reached; exiting\n")
        sys.stderr.flush()
        os._exit(EXIT_CODE)
