"""Double elimination: the draw. A team is out after its second loss.

The losers' side alternates rounds where its survivors meet each other with
rounds where the winners' side's losers drop in. The drop-ins come in reversed
order, then halves swapped, alternately (as Challonge routes them), so a
dropped team does not meet at once the team it beat or lost to in the winners'
side. The grand final sets the winners' champion against the losers'; with
``grand_final_reset`` a second final is played when the losers' champion wins
the first, so both finalists have lost twice or the champion never has.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from schemas.tournaments.events import BracketMatch, FormatKind, FormatOptions, Source
from services.tournaments.formats.base import Format
from services.tournaments.formats.bracket import BracketFormat, knockout_name
from services.tournaments.formats.single_elimination import winners_bracket


def _drop_order(losers: list[str], winners_round: int) -> list[str]:
    if winners_round % 2 == 0:
        return losers[::-1]
    half = len(losers) // 2
    return losers[half:] + losers[:half]


def draw(teams: int, reset: bool = True) -> list[BracketMatch]:
    winners = winners_bracket(teams)
    rounds = winners[-1].round_no  # k: the winners' final is round k
    matches = list(winners)
    losers_champion: Source
    if rounds == 1:
        losers_champion = Source(kind="loser", ref="W1-1")
    else:
        first = [BracketMatch(match_id=f"L1-{i + 1}", round_no=1,
                              home=Source(kind="loser", ref=f"W1-{2 * i + 1}"),
                              away=Source(kind="loser", ref=f"W1-{2 * i + 2}"))
                 for i in range(len([m for m in winners if m.round_no == 1]) // 2)]
        matches += first
        survivors = [Source(kind="winner", ref=m.match_id) for m in first]
        lr = 1
        for wr in range(2, rounds + 1):
            dropped = _drop_order([m.match_id for m in winners if m.round_no == wr], wr)
            lr += 1
            drop_round = [BracketMatch(match_id=f"L{lr}-{i + 1}", round_no=lr,
                                       home=survivors[i], away=Source(kind="loser", ref=ref))
                          for i, ref in enumerate(dropped)]
            matches += drop_round
            survivors = [Source(kind="winner", ref=m.match_id) for m in drop_round]
            if len(survivors) > 1:
                lr += 1
                among = [BracketMatch(match_id=f"L{lr}-{i + 1}", round_no=lr,
                                      home=survivors[2 * i], away=survivors[2 * i + 1])
                         for i in range(len(survivors) // 2)]
                matches += among
                survivors = [Source(kind="winner", ref=m.match_id) for m in among]
        losers_champion = survivors[0]
    final_round = max(rounds, matches[-1].round_no) + 1
    winners_champion = Source(kind="winner", ref=f"W{rounds}-1")
    matches.append(BracketMatch(match_id="GF", round_no=final_round,
                                home=winners_champion, away=losers_champion))
    if reset:
        matches.append(BracketMatch(match_id="GF2", round_no=final_round + 1,
                                    home=winners_champion, away=losers_champion,
                                    reset_of="GF"))
    return matches


class DoubleElimination(BracketFormat):
    kind: ClassVar[FormatKind] = "double_elimination"

    winners_stage = "winners"

    def draw(self, options: FormatOptions, teams: int) -> list[BracketMatch]:
        return draw(teams, options.grand_final_reset)

    def round_name(self, stage: str, round_no: int, numbers: Sequence[int]) -> str:
        """Winners' rounds as a knockout's ("Winners' semi-finals"), losers' rounds by
        number up to the losers' final, then the grand final and its reset."""
        if stage == "grand_final":
            return "Grand final" if round_no == numbers[0] else "Grand final reset"
        if stage == "losers":
            return "Losers' final" if round_no == numbers[-1] else f"Losers' round {round_no}"
        name = knockout_name(round_no, numbers[-1])
        return f"Winners' {name[0].lower()}{name[1:]}"


FORMAT: Format = DoubleElimination()
