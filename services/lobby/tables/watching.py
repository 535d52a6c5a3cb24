"""Who may watch a game without a seat in it.

A public table's game is anyone's to watch. A private table's game is watched by
the table's own people (its host, anyone seated at it) and by whoever gives its
room code: the code is how a private table is shared, and one who may sit down
with it may also look on. A table with no room code (a ranked or tournament
match's) is anyone's to watch with a delay (``watch_delay_tricks``, see
``edge.delay``), so a watcher cannot help a player; its players follow it as their
seats. A game no table names is open to all.
Whoever watches sees what a spectator sees (``engine.views.view`` with no seat):
the public table, never a hand.
"""

from __future__ import annotations

import secrets

from services.lobby.base.errors import LobbyError
from services.lobby.tables import store


def may_watch(t: store.TableRow | None, player_id: str, code: str | None) -> bool:
    """Refuse (403 ``room_code_required``) one who may not watch ``t``'s game; else
    whether they watch it delayed (a ranked or tournament match's, to one not at it)."""
    if t is None or not t.private:
        return False
    if player_id == t.host or any(s.player_id == player_id for s in t.seats):
        return False
    if t.code is None:
        return True
    if code is not None \
            and secrets.compare_digest(code.strip().upper().encode(), t.code.encode()):
        return False
    raise LobbyError("room_code_required",
                     "a private table's game is watched with its room code")
