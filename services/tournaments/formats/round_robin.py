"""Round robin: every team meets every other of its group once, by the Berger tables.

FIDE's Berger tables, so a printed schedule matches what players know: with an
even count the last team is fixed and the rest turn around it; with an odd
count a phantom team is added and its opponent has the round's bye. Groups are
snake seeded and play their rounds side by side.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from schemas.tournaments.events import FormatKind, FormatOptions, TournamentSettings
from services.tournaments.errors import TournamentError
from services.tournaments.formats.base import Format, Pairs, RoundFormat
from services.tournaments.formats.seeding import snake
from services.tournaments.state import Tournament


def berger(count: int) -> list[list[tuple[int, int | None]]]:
    """Rounds of (home, away) team numbers 1..count; ``None`` as away is a bye."""
    n = count + count % 2
    rounds: list[list[tuple[int, int | None]]] = []
    for r in range(1, n):
        pivot = 1 + (r - 1) * (n // 2) % (n - 1)
        fixed = (pivot, n) if r % 2 else (n, pivot)
        pairs: list[tuple[int, int]] = [fixed]
        for j in range(1, n // 2):
            pairs.append((1 + (pivot - 1 + j) % (n - 1), 1 + (pivot - 1 - j) % (n - 1)))
        rounds.append([_bye_last(p, count) for p in pairs])
    return rounds


def _bye_last(pair: tuple[int, int], count: int) -> tuple[int, int | None]:
    home, away = pair
    if home > count:
        return away, None
    return (home, None) if away > count else (home, away)


def rounds_of(teams: int, groups: int = 1) -> int:
    """How many rounds the schedule has: the largest group's Berger table."""
    largest = -(-teams // groups)
    return largest - 1 + largest % 2


def round_pairs(seeds: Sequence[str], round_no: int,
                groups: int = 1) -> tuple[list[tuple[str, str]], list[str]]:
    """Round ``round_no`` (1-based) of every group: (home, away) pairs and the byes.
    A group of an even count has two rounds fewer than one of the next odd count; it
    sits those rounds out, as byes."""
    pairs: list[tuple[str, str]] = []
    byes: list[str] = []
    for members in snake(len(seeds), groups):
        group = [seeds[i] for i in members]
        table = berger(len(group))
        if round_no > len(table):
            byes += group
            continue
        for home, away in table[round_no - 1]:
            if away is None:
                byes.append(group[home - 1])
            else:
                pairs.append((group[home - 1], group[away - 1]))
    return pairs, byes


def groups_for(options: FormatOptions, teams: int) -> int:
    """Groups: as many as asked, but never a group of one."""
    return max(1, min(options.groups, teams // 2))


class RoundRobin(RoundFormat):
    kind: ClassVar[FormatKind] = "round_robin"
    tiebreaks = ("head_to_head", "differential", "bags", "points")

    def check(self, s: TournamentSettings) -> None:
        if s.format.groups > s.min_teams // 2:
            raise TournamentError("too_many_groups", "each group needs at least two teams "
                                  "(groups at most min_teams / 2)")

    def rounds(self, options: FormatOptions, teams: int) -> int:
        return rounds_of(teams, groups_for(options, teams))

    def pair(self, state: Tournament, round_no: int, seed: str) -> Pairs:
        assert state.settings is not None
        return round_pairs(state.seeds, round_no, groups_for(state.settings.format,
                                                             len(state.seeds)))


FORMAT: Format = RoundRobin()
