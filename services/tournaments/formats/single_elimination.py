"""Single elimination: the draw. Byes go to the top seeds, seeds sit in the standard
order, and the semi-final losers may play for third place."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from schemas.tournaments.events import BracketMatch, FormatKind, FormatOptions, Source
from services.tournaments.formats.base import Format
from services.tournaments.formats.bracket import BracketFormat, knockout_name
from services.tournaments.formats.seeding import bracket_size, standard_order


def winners_bracket(teams: int) -> list[BracketMatch]:
    """The winners' side of a bracket for ``teams`` teams: "W<round>-<match>", round 1 first."""
    size = bracket_size(teams)
    order = standard_order(size)
    matches = [BracketMatch(match_id=f"W1-{i + 1}", round_no=1,
                            home=Source(kind="seed", ref=str(order[2 * i])),
                            away=Source(kind="seed", ref=str(order[2 * i + 1])))
               for i in range(size // 2)]
    count, rnd = size // 4, 2
    while count >= 1:
        matches += [BracketMatch(match_id=f"W{rnd}-{i + 1}", round_no=rnd,
                                 home=Source(kind="winner", ref=f"W{rnd - 1}-{2 * i + 1}"),
                                 away=Source(kind="winner", ref=f"W{rnd - 1}-{2 * i + 2}"))
                    for i in range(count)]
        count, rnd = count // 2, rnd + 1
    return matches


def draw(teams: int, third_place: bool = False) -> list[BracketMatch]:
    """The bracket; the third-place match, when asked for, comes just before the final."""
    matches = winners_bracket(teams)
    final_round = matches[-1].round_no
    if third_place and final_round >= 2:
        semis = f"W{final_round - 1}"
        matches.insert(-1, BracketMatch(match_id="3P", round_no=final_round,
                                        home=Source(kind="loser", ref=f"{semis}-1"),
                                        away=Source(kind="loser", ref=f"{semis}-2")))
    return matches


class SingleElimination(BracketFormat):
    kind: ClassVar[FormatKind] = "single_elimination"

    def draw(self, options: FormatOptions, teams: int) -> list[BracketMatch]:
        return draw(teams, options.third_place)

    def round_name(self, stage: str, round_no: int, numbers: Sequence[int]) -> str:
        if stage == "third_place":
            return "Third-place match"
        return knockout_name(round_no, numbers[-1])


FORMAT: Format = SingleElimination()
