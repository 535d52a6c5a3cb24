"""A readable timeline of a game's log, for operators: every deal face up, the bids,
each trick and its winner, clock expiries and bot moves, and each hand's score
broken down the way a score sheet shows it; and a board (hands, trick, bids, score)
drawn from a view.

One counting convention everywhere (this CLI, ``/v1/admin`` and the replay viewer):
events are numbered by their version, 1 for the first; "at N" is the state after N
events, so at 0 nothing has happened yet.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from schemas import events as ev
from schemas.seats import TEAM_SEATS
from schemas.views import OperatorView, SeatView

Names = Sequence[str]
SEATS = ("S0", "S1", "S2", "S3")


def seat_names(players: Sequence[str], known: Sequence[str | None] = ()) -> tuple[str, ...]:
    """How each seat is named to people: the known name, a bot as "Bot 2 (basic)" (its
    seat + 1, as the lobby names it), else the player id."""
    out = []
    for seat, player in enumerate(players):
        name = known[seat] if seat < len(known) else None
        if player.startswith("bot:"):
            out.append(f"{name or f'Bot {seat + 1}'} ({player[4:]})")
        else:
            out.append(name or player)
    return tuple(out)


def _who(names: Names, seat: int) -> str:
    return f"{SEATS[seat]} {names[seat]}" if names and names[seat] else SEATS[seat]


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


def describe(e: ev.Event, names: Names = ()) -> list[str]:
    """The lines for one event: each event carries all it takes to describe it."""
    if isinstance(e, ev.GameStarted):
        r = e.rules
        return [f"game started: rules {r.preset} (deck {r.deck}, bidding {r.bidding}), "
                f"players {', '.join(p or '-' for p in e.players)}, "
                f"scores {list(e.scores)}, seed commitment {e.seed_hash or '-'}"]
    if isinstance(e, ev.HandDealt):
        lines = [f"--- hand {e.hand_no}: {_who(names, e.dealer)} deals ---"]
        lines += [f"  {_who(names, s)}: {' '.join(h)}" for s, h in enumerate(e.hands)]
        return lines
    if isinstance(e, ev.CardsLooked):
        return [f"  {_who(names, e.seat)} looks at its cards"]
    if isinstance(e, ev.BidPlaced):
        what = "BLIND NIL" if e.blind else "nil" if e.bid == 0 else str(e.bid)
        return [f"  {_who(names, e.seat)} bids {what}" + (" (clock ran out: bot's bid)" if e.auto
                                                     else "")]
    if isinstance(e, ev.BidsRevealed):
        return [f"  bids revealed: {list(e.bids)}"]
    if isinstance(e, ev.CardsPassed):
        return [f"  {_who(names, e.seat)} passes {' '.join(e.cards)}"
                + (" (auto)" if e.auto else "")]
    if isinstance(e, ev.CardsExchanged):
        return ["  blind-nil cards exchanged"]
    if isinstance(e, ev.CardPlayed):
        note = " (clock ran out: bot's card)" if e.auto else " (pre-move)" if e.premove else ""
        return [f"    {_who(names, e.seat)} plays {e.card}{note}"]
    if isinstance(e, ev.TrickWon):
        cards = ", ".join(f"{_who(names, s)} {c}" for s, c in enumerate(e.cards))
        return [f"  trick {e.trick_no}: {cards} -> won by {_who(names, e.seat)}"]
    if isinstance(e, ev.HandScored):
        return [f"  hand {e.hand_no} scored, tricks {list(e.tricks)}"] + [
            "    " + _team_line(t, s) for t, s in enumerate(e.teams)]
    if isinstance(e, ev.TimeBankUsed):
        return [f"  {_who(names, e.seat)}'s clock ran out: time bank block spent "
                f"({e.blocks_left} left)"]
    if isinstance(e, ev.PremoveSet):
        return [f"  {_who(names, e.seat)} locks {e.card} as a pre-move"]
    if isinstance(e, ev.PremoveCancelled):
        return [f"  {_who(names, e.seat)} cancels its pre-move"]
    if isinstance(e, ev.PremoveDropped):
        return [f"  {_who(names, e.seat)}'s pre-move {e.card} bounced: {e.reason}"]
    if isinstance(e, ev.SeatTakenByBot):
        return [f"  a bot takes over {_who(names, e.seat)} ({e.reason})"]
    if isinstance(e, ev.SeatReclaimed):
        return [f"  {_who(names, e.seat)}'s player is back"]
    if isinstance(e, ev.GameEnded):
        who = "draw" if e.winner is None else f"team {e.winner} wins"
        extra = (f", forfeited by {_who(names, e.forfeited_by)}" if e.forfeited_by is not None
                 else "")
        return [f"=== game over ({e.reason}{extra}): {who}, scores {list(e.scores)}, "
                f"bags {list(e.bags)}; seed {e.seed or '-'}"]
    return [f"  {type(e).__name__}"]


def entries(events: Iterable[ev.Event], until: int | None = None,
            names: Names = ()) -> Iterator[tuple[int, list[str]]]:
    """(version, lines) for events 1..``until`` (all when None)."""
    for version, e in enumerate(events, 1):
        if until is not None and version > until:
            return
        yield version, describe(e, names)


def timeline(events: Iterable[ev.Event], until: int | None = None,
             names: Names = ()) -> Iterator[str]:
    """Lines for events 1..``until`` (inclusive), each prefixed with its version."""
    for version, lines in entries(events, until, names):
        for k, line in enumerate(lines):
            yield f"{version:5d} {line}" if k == 0 else f"      {line}"


def board(shown: OperatorView | SeatView, names: Names) -> list[str]:
    """The table at one moment, as a person reads it: each seat's bid, tricks and hand
    (only those the view may show), the trick on the table, the score."""
    t = shown.table if isinstance(shown, OperatorView) else shown
    hands: list[Sequence[str] | None] = (
        list(shown.hands) if isinstance(shown, OperatorView)
        else [t.hand if s == t.seat else None for s in range(4)])
    lines = [f"hand {t.hand_no}, {t.phase}" + (f", {_who(names, t.dealer)} dealt"
                                                 if t.hand_no else "")]
    for team, (first, second) in enumerate(TEAM_SEATS):
        lines.append(f"  team {team} ({_who(names, first)} & {_who(names, second)}): "
                     f"{t.scores[team]} points, {t.bags[team]} bags")
    width = max(len(_who(names, s)) for s in range(4))
    for s in range(4):
        bid = t.bids[s]
        said = ("-" if bid is None and not t.has_bid[s] else "hidden" if bid is None
                else ("blind nil" if t.blind[s] else "nil") if bid == 0 else str(bid))
        hand = hands[s]
        cards = " ".join(hand) if hand is not None else f"({t.cards_left[s]} cards, unseen)"
        turn = " <- to act" if s in t.waiting else ""
        lines.append(f"  {_who(names, s):<{width}}  bid {said:<9} tricks {t.tricks[s]:<2} "
                     f" {cards}{turn}")
    if t.trick:
        lines.append("  on the table: " + ", ".join(f"{_who(names, c.seat)} {c.card}"
                                                   for c in t.trick))
    if t.phase == "over":
        who = "a draw" if t.winner is None else f"team {t.winner} wins"
        lines.append(f"  game over ({t.end_reason}): {who}")
    return lines
