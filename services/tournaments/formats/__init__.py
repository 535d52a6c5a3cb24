"""Tournament formats as pure functions: brackets drawn from a seed count, round-robin
schedules, Swiss pairings. No clock, no IO, no random generator: a round's seed
arrives as an argument, so a replay draws and pairs exactly as the first run did."""

from __future__ import annotations

from schemas.tournament_events import BracketMatch, FormatOptions
from services.tournaments.formats import double_elimination, round_robin, single_elimination
from services.tournaments.formats.swiss import default_rounds, max_rounds

ELIMINATION = ("single_elimination", "double_elimination")


def draw(options: FormatOptions, teams: int) -> list[BracketMatch]:
    """An elimination format's bracket for ``teams`` teams."""
    if options.kind == "single_elimination":
        return single_elimination.draw(teams, options.third_place)
    return double_elimination.draw(teams, options.grand_final_reset)


def groups_for(options: FormatOptions, teams: int) -> int:
    """Round-robin groups: as many as asked, but never a group of one."""
    return max(1, min(options.groups, teams // 2))


def total_rounds(options: FormatOptions, teams: int) -> int:
    """Rounds of a Swiss or round-robin tournament of ``teams`` teams."""
    if options.kind == "round_robin":
        return round_robin.rounds_of(teams, groups_for(options, teams))
    return min(options.rounds or default_rounds(teams), max_rounds(teams))
