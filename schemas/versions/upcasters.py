"""Upcasters: how a stored event of an older shape becomes today's shape.

A stored event is never rewritten. Each entry lifts the plain data of one
event type from version ``n`` to ``n + 1``; readers chain them. Pure functions
over plain data, so every service decodes old events the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]


def _hand_scored_v1(data: dict[str, Any]) -> dict[str, Any]:
    """v1 named a team's tricks toward its contract ``tricks``; v2 calls it ``counted``,
    so it cannot be mistaken for the team's tricks taken."""
    teams = []
    for team in data["teams"]:
        team = dict(team)
        team["counted"] = team.pop("tricks")
        teams.append(team)
    return {**data, "teams": teams}


def _game_ended_v1(data: dict[str, Any]) -> dict[str, Any]:
    """v1 said neither who had left nor how many bags each team took: nobody is counted
    a leaver (a v1 game was never scored for one) and no team took a bag."""
    return {**data, "abandoned": [], "bags_taken": [0, 0]}


def _game_started_v1(data: dict[str, Any]) -> dict[str, Any]:
    """v1 games all drew their own seed, which their end revealed: none is sealed."""
    return {**data, "sealed": False}


def _game_ended_v2(data: dict[str, Any]) -> dict[str, Any]:
    """v2 neither sealed a seed nor listed each hand's score: a v2 game revealed its
    seed, and its hands' scores are in its ``HandScored`` events."""
    return {**data, "sealed": False, "deals": []}


GAME_UPCASTERS: dict[tuple[str, int], Upcaster] = {
    ("HandScored", 1): _hand_scored_v1,
    ("GameStarted", 1): _game_started_v1,
    ("GameEnded", 1): _game_ended_v1,
    ("GameEnded", 2): _game_ended_v2,
}


def _match_result_v1(data: dict[str, Any]) -> dict[str, Any]:
    """v1 did not name who stayed away from a no-show: nobody is counted absent (no v1
    result ever banned anyone)."""
    return {**data, "absent": []}


TOURNAMENT_UPCASTERS: dict[tuple[str, int], Upcaster] = {
    ("MatchResult", 1): _match_result_v1,
}
