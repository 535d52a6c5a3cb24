"""Views: what each seat may see, and each event as a seat may receive it.

The platform's one gate for hidden information (docs/architecture.md, rule 6): a
seat sees its own cards once it has looked, the public table, and its legal moves;
a spectator sees the table without any hand; secret bids stay secret until the
reveal and the shuffle seed until the game ends (a sealed seed, supplied from
outside, not even then: other tables may still be playing its deals).
"""

from __future__ import annotations

from msgspec.structs import replace

from engine.bidding import legal_bids
from engine.cards import codes
from engine.evolve import blind_nil_offered, passers
from engine.play import legal_cards
from engine.state import OVER, PASSING, GameState
from schemas import events as ev
from schemas.seats import partner_of
from schemas.views import OperatorView, SeatView, TrickCard
from schemas.ws import Turn


def _bid_visible(state: GameState, viewer: int | None, seat: int) -> bool:
    if state.bids[seat] < 0:
        return False
    if state.revealed or seat == viewer:
        return True
    return state.rules is not None and state.rules.bidding == "sequential"


def _legal_bids(state: GameState, seat: int) -> tuple[int, ...]:
    r = state.rules
    if r is None or state.phase != "bidding" or not state.waiting >> seat & 1:
        return ()
    return tuple(legal_bids(r))


# Each set of waiting seats (a bit per seat) as the seats' tuple.
_WAITING: tuple[tuple[int, ...], ...] = tuple(
    tuple(s for s in range(4) if b >> s & 1) for b in range(16))


def turn(state: GameState, seat: int | None, public: Turn | None = None) -> Turn:
    """Who must act, their clocks, and this seat's legal moves: the part of ``view``
    that changes with every event, sent with each one. ``public``, the spectator's
    turn of the same state, is handed back itself when the seat has no move of its
    own, so the fan-out tells a seat that may share the spectator's frame by identity
    instead of building and comparing a turn per seat and event."""
    if seat is not None:
        r = state.rules
        mine = state.waiting >> seat & 1
        legal = legal_cards(state, seat) if mine else 0
        bids = _legal_bids(state, seat) if mine else ()
        blind = blind_nil_offered(state, seat)
        passing = (r.blind_nil_pass if mine and r is not None and state.phase == PASSING
                   else 0)
        if public is not None and not (legal or bids or blind or passing):
            return public
    w, d = state.waiting, state.deadlines
    waiting = _WAITING[w]
    deadlines = (d[0] if w & 1 else 0, d[1] if w & 2 else 0, d[2] if w & 4 else 0,
                 d[3] if w & 8 else 0)
    if seat is None:
        return Turn(waiting=waiting, deadlines=deadlines, bank=state.bank)
    return Turn(waiting=waiting, deadlines=deadlines, bank=state.bank,
                legal_cards=codes(legal), legal_bids=bids, blind_nil_offered=blind,
                pass_count=passing)


def view(state: GameState, seat: int | None) -> SeatView:
    """The seat's view; ``seat=None`` is a spectator's."""
    sees_hand = seat is not None and bool(state.looked >> seat & 1)
    bids = tuple(state.bids[s] if _bid_visible(state, seat, s) else None for s in range(4))
    now = turn(state, seat)
    r = state.rules
    seated = seat is not None
    return SeatView(
        version=state.version, phase=state.phase, seat=seat, rules=r, players=state.players,
        hand_no=state.hand_no, dealer=state.dealer,
        hand=codes(state.hands[seat]) if seated and sees_hand else None,  # type: ignore[index]
        looked=sees_hand, cards_left=tuple(h.bit_count() for h in state.hands),
        bids=bids, has_bid=tuple(b >= 0 for b in state.bids),
        blind=tuple(bool(state.blind >> s & 1) and bids[s] is not None for s in range(4)),
        revealed=state.revealed, waiting=now.waiting, deadlines=now.deadlines, bank=now.bank,
        trick=tuple(TrickCard((state.leader + i) % 4, codes(1 << c)[0])
                    for i, c in enumerate(state.trick)),
        leader=state.leader, last_trick=tuple(codes(1 << c)[0] for c in state.last_trick),
        broken=state.broken, tricks=state.tricks, scores=state.scores, bags=state.bags,
        sheet=state.sheet,
        legal_cards=now.legal_cards, legal_bids=now.legal_bids,
        blind_nil_offered=now.blind_nil_offered, pass_count=now.pass_count,
        passed=codes(state.passes[seat]) if seated else (),  # type: ignore[index]
        premove=(codes(1 << state.premoves[seat])[0]  # type: ignore[index]
                 if seated and state.premoves[seat] >= 0 else None),  # type: ignore[index]
        bots=tuple(bool(state.bots >> s & 1) for s in range(4)),
        seed_hash=state.seed_hash, hand_seed_hash=state.hand_seed_hash,
        seed=state.seed if state.phase == OVER and state.seed and not state.sealed else None,
        winner=state.winner, end_reason=state.end_reason)


def operator_view(state: GameState) -> OperatorView:
    """Every hand face up: for operators only, never for a seat or a spectator."""
    return OperatorView(
        table=view(state, None), hands=tuple(codes(h) for h in state.hands),
        dealt=tuple(codes(h) for h in state.dealt), bids=state.bids,
        premoves=tuple(codes(1 << c)[0] if c >= 0 else None for c in state.premoves),
        seed=state.seed)


# Events every seat and spectator receive as they are: none of them is of a type that
# ``redact`` changes or withholds below (``tests/engine/test_views.py`` checks it).
_PUBLIC: frozenset[type] = frozenset({
    ev.BidsRevealed, ev.CardPlayed, ev.TrickWon, ev.HandScored, ev.TimeBankUsed,
    ev.SeatTakenByBot, ev.SeatReclaimed})
_OWN_ONLY = (ev.PremoveSet, ev.PremoveCancelled, ev.PremoveDropped)  # the seat's alone


def redact(event: ev.Event, after: GameState, seat: int | None) -> ev.Event | None:
    """``event`` as ``seat`` may receive it (None: not at all); ``after`` is the
    state once the event is applied."""
    if type(event) in _PUBLIC:  # most events: the fan-out asks once per seat and event
        return event
    if isinstance(event, ev.GameStarted):
        return replace(event, seed="")
    if isinstance(event, ev.GameEnded) and event.sealed:
        return replace(event, seed="")  # its owner reveals it (a duplicate round's end)
    if isinstance(event, ev.HandDealt):
        own = seat is not None and bool(after.looked >> seat & 1)
        return replace(event, hands=tuple(
            h if own and s == seat else () for s, h in enumerate(event.hands)))
    if isinstance(event, ev.BidPlaced):
        if event.seat == seat or _bid_visible(after, seat, event.seat):
            return event
        return replace(event, bid=-1, blind=False)
    if isinstance(event, ev.CardsLooked):
        return replace(event, cards=codes(after.hands[seat])) if event.seat == seat else event
    if isinstance(event, ev.CardsExchanged):
        if seat is None or not after.passes[partner_of(seat)]:
            return event
        return replace(event, received=codes(after.passes[partner_of(seat)]))
    if isinstance(event, ev.CardsPassed):
        return event if event.seat == seat else replace(event, cards=())
    if isinstance(event, _OWN_ONLY):
        return event if event.seat == seat else None
    return event


__all__ = ["operator_view", "passers", "redact", "turn", "view"]
