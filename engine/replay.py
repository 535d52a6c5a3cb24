"""Replaying a stored event log and checking that the engine still agrees with it.

A log is a sequence of command groups: the first event of each group says what
was asked (a ``CardPlayed`` was a ``PlayCard``, an ``auto`` bid was a
``ClockExpired`` carrying that bid...), and the rest are its consequences (``TrickWon``,
``HandScored``, the next ``HandDealt``...). Verification re-runs each command on
the state before it and demands exactly the stored events, and checks the
engine's invariants after every event. The first divergence is the verdict.
A move made for a timed-out seat is read from its event, never asked of a bot,
so a change of bot strategy cannot make a stored game diverge.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import msgspec

from engine.decide import decide
from engine.errors import RuleError
from engine.evolve import evolve
from engine.state import DEALING, NEW, OVER, GameState
from schemas import commands as cmd
from schemas import events as ev


class Divergence(msgspec.Struct, frozen=True, kw_only=True):
    """Where a log and today's engine part ways."""

    index: int  # the event number (from 0) where they differ
    reason: str
    stored: list[ev.GameEvent]
    produced: list[ev.GameEvent]
    error: str | None = None


def candidate_commands(state: GameState, e: ev.Event) -> list[cmd.Command]:
    """The commands that can have produced ``e`` as the first event of their group."""
    at = e.at
    if isinstance(e, ev.GameStarted):
        return [cmd.StartGame(rules=e.rules, players=e.players, seed=e.seed, scores=e.scores,
                              bags=e.bags, rated=e.rated, sealed=e.sealed, at=at)]
    if isinstance(e, ev.HandDealt):
        return [cmd.DealHand(dealer=e.dealer, hands=e.hands, at=at)]
    if isinstance(e, ev.CardsLooked):
        return [cmd.LookAtCards(seat=e.seat, at=at)]
    if isinstance(e, ev.BidPlaced):
        if e.auto:
            return [cmd.ClockExpired(seat=e.seat, bid=e.bid, at=at)]
        if e.blind:
            return [cmd.BidBlindNil(seat=e.seat, at=at)]
        return [cmd.PlaceBid(seat=e.seat, bid=e.bid, at=at)]
    if isinstance(e, ev.CardsPassed):
        if e.auto:
            return [cmd.ClockExpired(seat=e.seat, cards=e.cards, at=at)]
        return [cmd.PassCards(seat=e.seat, cards=e.cards, at=at)]
    if isinstance(e, ev.CardPlayed):
        if e.auto:
            return [cmd.ClockExpired(seat=e.seat, card=e.card, at=at)]
        return [cmd.PlayCard(seat=e.seat, card=e.card, at=at),
                cmd.SetPremove(seat=e.seat, card=e.card, at=at)]
    if isinstance(e, ev.TimeBankUsed):
        return [cmd.ClockExpired(seat=e.seat, at=at)]
    if isinstance(e, ev.PremoveSet):
        return [cmd.SetPremove(seat=e.seat, card=e.card, at=at)]
    if isinstance(e, ev.PremoveCancelled):
        return [cmd.CancelPremove(seat=e.seat, at=at)]
    if isinstance(e, ev.SeatTakenByBot):
        return [cmd.LeaveSeat(seat=e.seat, at=at)]
    if isinstance(e, ev.SeatReclaimed):
        return [cmd.ReturnToSeat(seat=e.seat, at=at)]
    if isinstance(e, ev.GameEnded) and e.forfeited_by is not None:
        return [cmd.LeaveSeat(seat=e.forfeited_by, at=at),
                cmd.ClockExpired(seat=e.forfeited_by, at=at)]
    return []


def invariant_problems(state: GameState) -> list[str]:
    """What is wrong with a state that a correct engine can never reach."""
    problems: list[str] = []
    if state.phase in (NEW, DEALING) or state.deck is None or not state.hand_no:
        return problems
    hands = state.hands
    held = 0
    for h in hands:
        if held & h:
            problems.append("a card is held by two seats")
        held |= h
    dealt = 0
    for h in state.dealt:
        dealt |= h
    if dealt != state.deck.mask:
        problems.append("the deal is not exactly the deck")
    played_in_trick = 0
    for c in state.trick:
        played_in_trick |= 1 << c
    if held & played_in_trick:
        problems.append("a card in the trick is still in a hand")
    tricks_done = len(state.trick_winners)
    if sum(state.tricks) != tricks_done or tricks_done > 13:
        problems.append("tricks taken do not match the tricks played")
    if state.phase != OVER and held.bit_count() + len(state.trick) != 52 - 4 * tricks_done:
        problems.append("cards are not conserved")
    if len(state.trick) > 3:
        problems.append("a full trick was not collected")
    if state.sheet:
        last = state.sheet[-1]
        if (last.teams[0].score_after, last.teams[1].score_after) != state.scores:
            problems.append("the totals disagree with the score sheet")
    return problems


Step = tuple[int, GameState, GameState, "Divergence | None"]

# What the GameEnded upcasters fill in for fields older versions did not record.
_UPCAST_ENDING = {"abandoned": (), "bags_taken": (0, 0), "deals": ()}


def _agrees(stored: Sequence[ev.Event], produced: list[ev.Event]) -> bool:
    """Stored events equal the produced ones, except that a ``GameEnded`` stored as an
    older version reads with its upcasters' empty ``abandoned``, ``bags_taken`` (v1) and
    ``deals`` (v2): the engine of the day recorded none, so they are not held against it."""
    if list(stored) == produced:
        return True
    if len(stored) != len(produced) or not produced:
        return False
    last, made = stored[-1], produced[-1]
    if not (isinstance(last, ev.GameEnded) and isinstance(made, ev.GameEnded)):
        return False
    unrecorded = {k: v for k, v in _UPCAST_ENDING.items() if getattr(last, k) == v}
    return (bool(unrecorded) and list(stored[:-1]) == produced[:-1]
            and last == msgspec.structs.replace(made, **unrecorded))


def groups(events: Sequence[ev.Event]) -> Iterator[Step]:
    """Walk the log command by command: ``(index, state_before, state_after, divergence)``."""
    state = GameState()
    i = 0
    while i < len(events):
        first = events[i]
        tried: list[ev.Event] = []
        error = None
        for c in candidate_commands(state, first):
            try:
                produced = decide(state, c)
            except RuleError as err:
                error = f"{err.code}: {err.message}"
                continue
            if _agrees(events[i:i + len(produced)], produced):
                after = state
                for e in produced:
                    after = evolve(after, e)
                problems = invariant_problems(after)
                if problems:
                    yield i, state, after, Divergence(
                        index=i, reason="invariant broken: " + "; ".join(problems),
                        stored=list(events[i:i + len(produced)]),  # type: ignore[arg-type]
                        produced=produced)  # type: ignore[arg-type]
                    return
                yield i, state, after, None
                state = after
                i += len(produced)
                break
            tried = produced
        else:
            reason = ("the engine refuses the command" if error and not tried
                      else "the engine produces other events" if tried
                      else "no command produces this event first")
            k = 0  # the first event of the group that differs
            while k < len(tried) - 1 and i + k < len(events) and events[i + k] == tried[k]:
                k += 1
            yield i + k, state, state, Divergence(
                index=i + k, reason=reason,
                stored=list(events[i + k:i + max(len(tried), 1)]),  # type: ignore[arg-type]
                produced=tried[k:], error=error)  # type: ignore[arg-type]
            return


def verify(events: Sequence[ev.Event]) -> Divergence | None:
    """The first divergence of a log from today's engine, or None when it verifies."""
    for _, _, _, divergence in groups(events):
        if divergence is not None:
            return divergence
    return None
