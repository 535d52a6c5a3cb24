"""Double round robin: every team meets every other of its group twice, once at home
(seats 0 and 2) and once away.

The first half of the rounds is the round robin's Berger schedule; the second half
plays it again in the same order with home and away swapped, as leagues play their
return games. Everything else (groups, byes, tie-breaks, standings) is the round
robin's.
"""

from __future__ import annotations

from typing import ClassVar

from schemas.tournaments.events import FormatKind, FormatOptions
from services.tournaments.formats.base import Format, Pairs
from services.tournaments.formats.round_robin import RoundRobin
from services.tournaments.state import Tournament


class DoubleRoundRobin(RoundRobin):
    kind: ClassVar[FormatKind] = "double_round_robin"

    def rounds(self, options: FormatOptions, teams: int) -> int:
        return 2 * super().rounds(options, teams)

    def pair(self, state: Tournament, round_no: int, seed: str) -> Pairs:
        assert state.settings is not None
        first_half = super().rounds(state.settings.format, state.entrants)
        if round_no <= first_half:
            return super().pair(state, round_no, seed)
        pairs, byes = super().pair(state, round_no - first_half, seed)
        return [(away, home) for home, away in pairs], byes


FORMAT: Format = DoubleRoundRobin()
