"""A readable timeline of a game's log, for operators: every deal face up, the bids,
each trick and its winner, clock expiries and bot moves, and each hand's score
broken down the way a score sheet shows it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from schemas import events as ev

SEATS = ("S0", "S1", "S2", "S3")


def _team_line(t: int, s: ev.TeamScore) -> str:
    parts = [f"team {t}:"]
    if s.contract:
        parts.append(f"contract {s.contract}, counted {s.counted} -> "
                     f"{'made' if s.made else 'set'} {s.contract_points:+d}")
        if s.overtricks:
            parts.append(f"(overtricks {s.overtricks})")
    else:
        parts.append("double nil, no contract")
    if s.nil_points:
        parts.append(f"nil {s.nil_points:+d}")
    if s.failed_nil_tricks:
        parts.append(f"failed-nil tricks {s.failed_nil_tricks} ({s.failed_nil_points:+d})")
    if s.boston:
        parts.append(f"BOSTON {s.boston_points:+d}")
    if s.bag_penalty:
        parts.append(f"bag penalty -{s.bag_penalty}")
    parts.append(f"bags +{s.bags_gained} -> {s.bags_after}; hand {s.delta:+d}, "
                 f"total {s.score_after}")
    return " ".join(parts)


def describe(e: ev.Event) -> list[str]:
    """The lines for one event: each event carries all it takes to describe it."""
    if isinstance(e, ev.GameStarted):
        r = e.rules
        return [f"game started: rules {r.preset} (deck {r.deck}, bidding {r.bidding}), "
                f"players {', '.join(p or '-' for p in e.players)}, "
                f"scores {list(e.scores)}, seed commitment {e.seed_hash or '-'}"]
    if isinstance(e, ev.HandDealt):
        lines = [f"--- hand {e.hand_no}: seat {e.dealer} deals ---"]
        lines += [f"  {SEATS[s]}: {' '.join(h)}" for s, h in enumerate(e.hands)]
        return lines
    if isinstance(e, ev.CardsLooked):
        return [f"  {SEATS[e.seat]} looks at its cards"]
    if isinstance(e, ev.BidPlaced):
        what = "BLIND NIL" if e.blind else "nil" if e.bid == 0 else str(e.bid)
        return [f"  {SEATS[e.seat]} bids {what}" + (" (clock ran out: bot's bid)" if e.auto
                                                     else "")]
    if isinstance(e, ev.BidsRevealed):
        return [f"  bids revealed: {list(e.bids)}"]
    if isinstance(e, ev.CardsPassed):
        return [f"  {SEATS[e.seat]} passes {' '.join(e.cards)}" + (" (auto)" if e.auto else "")]
    if isinstance(e, ev.CardsExchanged):
        return ["  blind-nil cards exchanged"]
    if isinstance(e, ev.CardPlayed):
        note = " (clock ran out: bot's card)" if e.auto else " (pre-move)" if e.premove else ""
        return [f"    {SEATS[e.seat]} plays {e.card}{note}"]
    if isinstance(e, ev.TrickWon):
        cards = ", ".join(f"{SEATS[s]} {c}" for s, c in enumerate(e.cards))
        return [f"  trick {e.trick_no}: {cards} -> won by {SEATS[e.seat]}"]
    if isinstance(e, ev.HandScored):
        return [f"  hand {e.hand_no} scored, tricks {list(e.tricks)}"] + [
            "    " + _team_line(t, s) for t, s in enumerate(e.teams)]
    if isinstance(e, ev.TimeBankUsed):
        return [f"  {SEATS[e.seat]}'s clock ran out: time bank block spent "
                f"({e.blocks_left} left)"]
    if isinstance(e, ev.PremoveSet):
        return [f"  {SEATS[e.seat]} locks {e.card} as a pre-move"]
    if isinstance(e, ev.PremoveCancelled):
        return [f"  {SEATS[e.seat]} cancels its pre-move"]
    if isinstance(e, ev.PremoveDropped):
        return [f"  {SEATS[e.seat]}'s pre-move {e.card} bounced: {e.reason}"]
    if isinstance(e, ev.SeatTakenByBot):
        return [f"  a bot takes over {SEATS[e.seat]} ({e.reason})"]
    if isinstance(e, ev.SeatReclaimed):
        return [f"  {SEATS[e.seat]}'s player is back"]
    if isinstance(e, ev.GameEnded):
        who = "draw" if e.winner is None else f"team {e.winner} wins"
        extra = f", forfeited by seat {e.forfeited_by}" if e.forfeited_by is not None else ""
        return [f"=== game over ({e.reason}{extra}): {who}, scores {list(e.scores)}, "
                f"bags {list(e.bags)}; seed {e.seed or '-'}"]
    return [f"  {type(e).__name__}"]


def timeline(events: Iterable[ev.Event], until: int | None = None) -> Iterator[str]:
    """Lines for events 0..``until`` (inclusive), each prefixed with its number."""
    for i, e in enumerate(events):
        if until is not None and i > until:
            return
        for k, line in enumerate(describe(e)):
            yield f"{i:5d} {line}" if k == 0 else f"      {line}"
