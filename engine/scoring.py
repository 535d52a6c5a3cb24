"""Scoring a hand and deciding whether the match is over: pure table-tested functions.

Each team is scored on its own. Nil bids are scored apart from the partner's
contract; what a failed nil's tricks are worth is the ``failed_nil`` option.
"""

from __future__ import annotations

from schemas.events import TeamScore
from schemas.rules import Rules
from schemas.seats import TEAM_SEATS


def contract_of(rules: Rules, bid_a: int, bid_b: int) -> int:
    """The team contract: positive bids added, raised to the board; 0 for double nil.

    With one nil the partner's bid alone is the contract, and board applies to it.
    """
    if bid_a == 0 and bid_b == 0:
        return 0
    return max(bid_a + bid_b, rules.board)


def _flat_200(rules: Rules, contract: int) -> bool:
    """10-for-200: a contract of 10 or more is worth a flat 200 instead of 100-something."""
    return rules.ten_for_200 and contract >= 10


def score_team(rules: Rules, bids: tuple[int, int], blind: tuple[bool, bool],
               tricks: tuple[int, int], score: int, bags: int) -> TeamScore:
    """Score one team for one hand. ``bids``/``blind``/``tricks`` are its two seats'."""
    nil_points = 0
    failed_tricks = 0
    for bid, is_blind, took in zip(bids, blind, tricks, strict=True):
        if bid == 0:
            value = rules.blind_nil_value if is_blind else rules.nil_value
            nil_points += value if took == 0 else -value
            failed_tricks += took
    contract = contract_of(rules, *bids)
    double_nil = bids[0] == 0 and bids[1] == 0
    counted = sum(t for b, t in zip(bids, tricks, strict=True) if b > 0)
    mode = rules.failed_nil
    if mode == "help_partner" and not double_nil:
        counted += failed_tricks
        failed_tricks = 0
    elif mode == "help_partner":
        mode = "bags_scored"  # no contract to help: every trick of a double nil is a bag

    contract_points = overtricks = 0
    made = True
    if contract:
        made = counted >= contract
        flat = _flat_200(rules, contract)
        value = 200 if flat else 10 * contract
        contract_points = value if made else -value
        if made:
            overtricks = counted - contract  # bags either way; a point each unless flat
            contract_points += 0 if flat else overtricks
    bags_gained = overtricks
    failed_points = 0
    if mode == "bags_scored":
        bags_gained += failed_tricks
        failed_points = failed_tricks
    elif mode == "bags_unscored":
        bags_gained += failed_tricks

    team_tricks = tricks[0] + tricks[1]
    boston = rules.boston != "off" and team_tricks == 13 and (
        not rules.boston_needs_bid or bids[0] + bids[1] == 13)
    boston_points = rules.boston_bonus if boston and rules.boston == "bonus" else 0

    penalty = 0
    bags_after = bags + bags_gained
    if rules.bag_penalty and bags_after >= rules.bag_limit:
        if rules.bag_carry:
            while bags_after >= rules.bag_limit:
                bags_after -= rules.bag_limit
                penalty += rules.bag_penalty
        else:
            bags_after = 0
            penalty = rules.bag_penalty
    delta = contract_points + nil_points + failed_points + boston_points - penalty
    return TeamScore(
        contract=contract, counted=counted, made=made, contract_points=contract_points,
        overtricks=overtricks, nil_points=nil_points, failed_nil_tricks=failed_tricks,
        failed_nil_points=failed_points, boston=boston, boston_points=boston_points,
        bags_gained=bags_gained, bag_penalty=penalty, delta=delta, bags_after=bags_after,
        score_after=score + delta)


def score_hand(rules: Rules, bids: tuple[int, ...], blind: int, tricks: tuple[int, ...],
               scores: tuple[int, int], bags: tuple[int, int]) -> tuple[TeamScore, TeamScore]:
    """Both teams' scores; ``blind`` is a seat mask, the tuples are in seat order."""
    def team(t: int) -> TeamScore:
        a, b = TEAM_SEATS[t]
        return score_team(rules, (bids[a], bids[b]), (bool(blind >> a & 1), bool(blind >> b & 1)),
                          (tricks[a], tricks[b]), scores[t], bags[t])
    return team(0), team(1)


def match_outcome(rules: Rules, scores: tuple[int, int], hands_played: int,
                  boston_team: int | None = None) -> tuple[bool, int | None, str]:
    """``(over, winner, reason)`` after a complete hand; ``winner`` None is a draw.

    A Boston that wins outright ends the match whatever the scores. Otherwise the
    match ends when a team reached the target, fell to the floor, or the set
    number of hands is played; the higher total wins, and a tie plays on (quick
    match sudden death included) unless the rules allow a draw.
    """
    if boston_team is not None and rules.boston == "win":
        return True, boston_team, "boston"
    reasons = []
    if rules.floor is not None and min(scores) <= rules.floor:
        reasons.append("floor")
    if rules.target is not None and max(scores) >= rules.target:
        reasons.append("target")
    if rules.max_hands is not None and hands_played >= rules.max_hands:
        reasons.append("hands")
    if not reasons:
        return False, None, ""
    if scores[0] != scores[1]:
        return True, 0 if scores[0] > scores[1] else 1, reasons[0]
    if rules.tie == "draw":
        return True, None, reasons[0]
    return False, None, ""
