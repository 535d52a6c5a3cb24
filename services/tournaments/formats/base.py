"""What a tournament format is to ``decide``: one protocol, so a new format is one new file
in ``formats/`` and its line in the registry (``formats/__init__.py``), not a branch in
every decision.

A format is data (its name, whether a match may be drawn, whether it is paired round by
round, whether teams may join late or the organizer may pair by hand, what a bye is
worth, its tie-breaks) and a few pure functions over the tournament's fold: check its
own options, what starting adds, pair a round, what follows from the results so far,
the timers it needs while running, and whether an override comes too late.

Two families share most of that: formats paired round by round (``RoundFormat``:
Swiss, round robin) and elimination brackets (``formats/bracket.py``:
``BracketFormat``). A format subclasses one and says what differs.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, Protocol

from schemas.tournaments import events as ev
from services.tournaments.errors import TournamentError
from services.tournaments.standings import Row, ranked
from services.tournaments.state import Tournament

Pairs = tuple[list[tuple[str, str]], list[str]]  # (home, away) pairs, and the byes


@dataclass(frozen=True, slots=True)
class RoundName:
    """One round as the format calls it. ``stage`` tells apart rounds of one number in
    different parts of a bracket (a double elimination's winners' and losers' round 2)."""

    stage: str
    round_no: int
    name: str


ROUNDS = "rounds"  # the one stage of a format paired round by round


class TieBreakError(ValueError):
    """An organizer's tie-break order names a tie-break the format does not have, or one twice."""


class Format(Protocol):
    """One tournament format, as ``decide`` and the store's timers see it."""

    @property
    def kind(self) -> ev.FormatKind:
        """The name in ``FormatOptions.kind``."""
        ...

    @property
    def draws(self) -> bool:
        """A match may end drawn (else rules with ``tie: "draw"`` and drawn results are
        refused)."""
        ...

    @property
    def by_rounds(self) -> bool:
        """Paired a round at a time on ``PairRound`` (and so may play duplicate deals);
        else a match is paired as soon as both its teams are known."""
        ...

    @property
    def late_join(self) -> bool:
        """Teams may join after the start (``FormatOptions.late_join``)."""
        ...

    @property
    def hand_pairings(self) -> bool:
        """The organizer may set the next round's pairings (``SetPairings``)."""
        ...

    def check(self, s: ev.TournamentSettings) -> None:
        """Refuse, with a ``TournamentError``, the format's own options that cannot work."""
        ...

    def tiebreak_order(self, chosen: Sequence[ev.TieBreak]) -> tuple[ev.TieBreak, ...]:
        """The organizer's order, or the default; ``TieBreakError`` for one not allowed."""
        ...

    def rounds(self, options: ev.FormatOptions, teams: int) -> int:
        """How many rounds ``teams`` teams play (round by round formats)."""
        ...

    def start(self, options: ev.FormatOptions, seeds: tuple[str, ...],
              at: int) -> list[ev.Event]:
        """What the start adds after ``TournamentStarted`` (a bracket's draw)."""
        ...

    def pair(self, state: Tournament, round_no: int, seed: str) -> Pairs:
        """Round ``round_no``'s pairs and byes; ``seed`` is the round's randomness."""
        ...

    def settle(self, state: Tournament, at: int) -> list[ev.Event]:
        """What follows from the results so far: matches paired, a round completed, the
        tournament finished. Empty when nothing follows."""
        ...

    def timers(self, state: Tournament) -> dict[str, int]:
        """Timer kind -> when, while running (``services/tournaments/timers.py`` says
        which command each kind fires)."""
        ...

    def override_too_late(self, state: Tournament, match_id: str) -> bool:
        """A team of this match has been paired for its next match."""
        ...

    def standings(self, state: Tournament) -> list[Row]:
        """The standings now, with the format's bye value and tie-breaks (a knockout: by
        how far each team went, with each team's ``reached`` round)."""
        ...

    def standings_columns(self, s: ev.TournamentSettings) -> tuple[str, ...]:
        """The standings' fields that decide the order, most important first (names of
        ``StandingView`` fields): what a client shows for this format."""
        ...

    def round_names(self, state: Tournament) -> list[RoundName]:
        """Every round the tournament plays, named, stage by stage and in order; empty
        before the start (the field decides how many rounds there are)."""
        ...

    def stage_of(self, match_id: str) -> str:
        """The stage (of ``round_names``) a match of this format is in."""
        ...


class CommonFormat:
    """What every format does alike: its tie-breaks, standings, and no options of its own.
    A format sets the class attributes and overrides what differs."""

    kind: ClassVar[ev.FormatKind]
    draws: ClassVar[bool] = True
    by_rounds: ClassVar[bool] = True
    late_join: ClassVar[bool] = False
    hand_pairings: ClassVar[bool] = False
    bye_points: ClassVar[int] = 0  # half points
    tiebreaks: ClassVar[tuple[ev.TieBreak, ...]]  # the default order; none other is allowed

    def check(self, s: ev.TournamentSettings) -> None:
        return None

    def tiebreak_order(self, chosen: Sequence[ev.TieBreak]) -> tuple[ev.TieBreak, ...]:
        if not chosen:
            return self.tiebreaks
        if len(set(chosen)) != len(chosen) or not set(chosen) <= set(self.tiebreaks):
            raise TieBreakError(f"{self.kind} tie-breaks are some of "
                                f"{', '.join(sorted(self.tiebreaks))}, each at most once")
        return tuple(chosen)

    def standings(self, state: Tournament) -> list[Row]:
        s = state.settings
        chosen = s.format.tiebreaks if s is not None else ()
        return ranked(state.seeds, state.ledger, state.byes(), bye_points=self.bye_points,
                      half_byes=state.half_byes, tiebreaks=self.tiebreak_order(chosen))

    def standings_columns(self, s: ev.TournamentSettings) -> tuple[str, ...]:
        return ("match_points", *self.tiebreak_order(s.format.tiebreaks), "seed")


class RoundFormat(CommonFormat, ABC):
    """A format paired round by round (``PairRound``, from the scheduler's ``pair`` timer,
    ``round_interval_seconds`` after the previous round): a round completes when its
    results are in, and the last one finishes the tournament, ranked by the standings."""

    @abstractmethod
    def rounds(self, options: ev.FormatOptions, teams: int) -> int: ...

    @abstractmethod
    def pair(self, state: Tournament, round_no: int, seed: str) -> Pairs: ...

    def start(self, options: ev.FormatOptions, seeds: tuple[str, ...],
              at: int) -> list[ev.Event]:
        return []

    def settle(self, state: Tournament, at: int) -> list[ev.Event]:
        if state.rounds and not state.rounds[-1].completed and all(
                state.matches[m].outcome is not None for m in state.rounds[-1].match_ids):
            last = state.rounds[-1]
            return [ev.RoundCompleted(at=at, round_no=last.round_no, deal_seed=last.deal_seed)]
        if len(state.rounds) == self._total(state) and state.rounds[-1].completed:
            ranking = tuple(r.team_id for r in self.standings(state))
            return [ev.TournamentFinished(at=at, champion=ranking[0], ranking=ranking)]
        return []

    def timers(self, state: Tournament) -> dict[str, int]:
        s = state.settings
        if (s is None or (state.rounds and not state.rounds[-1].completed)
                or len(state.rounds) >= self._total(state)):
            return {}
        delay = s.round_interval_seconds * 1000 if state.rounds else 0
        return {"pair": state.turned_at + delay}

    def override_too_late(self, state: Tournament, match_id: str) -> bool:
        return state.matches[match_id].pairing.round_no < len(state.rounds)

    def round_names(self, state: Tournament) -> list[RoundName]:
        if not state.entrants:
            return []
        total = self._total(state)
        return [RoundName(ROUNDS, n, self.round_name(n, total)) for n in range(1, total + 1)]

    def round_name(self, round_no: int, total: int) -> str:
        """Round ``round_no`` of ``total``'s name."""
        return f"Round {round_no}"

    def stage_of(self, match_id: str) -> str:
        return ROUNDS

    def _total(self, state: Tournament) -> int:
        if state.settings is None:
            raise TournamentError("no_tournament", "no tournament has been created here")
        return self.rounds(state.settings.format, state.entrants)
