"""Typed tournament errors: a stable code for programs, a plain message for people.

``decide`` raises ``TournamentError`` and, being pure, has appended nothing. It is
the engine's ``RuleError`` (code and message) under the tournament's name, so the
one place that maps rule errors to replies maps these too.
"""

from __future__ import annotations

from engine.errors import RuleError


class TournamentError(RuleError):
    __slots__ = ()


# The stable codes, for documentation and for clients that switch on them.
CODES = {
    "tournament_exists": "a tournament with this id was already created",
    "no_tournament": "no tournament has been created on this stream",
    "not_organizer": "only the tournament's organizer may do this",
    "already_started": "the tournament has started; its settings are fixed",
    "tournament_over": "the tournament is finished or cancelled",
    "max_below_min": "max_teams is smaller than min_teams",
    "bad_window": "registration must open before it closes, and close by the start",
    "check_in_outside_window": "the check-in would open before registration opens",
    "draw_in_elimination": "elimination needs a winner: rules with tie \"draw\" are refused",
    "duplicate_needs_rounds": "duplicate deals are for Swiss and round robin",
    "too_many_rounds": "a Swiss tournament has fewer rounds than two thirds of its teams",
    "too_many_groups": "each round-robin group needs at least two teams",
    "bad_tiebreaks": "a tie-break the format does not have, or one named twice",
    "rated_needs_ranked_rules": "only a tournament on the ranked preset may be rated",
    "registration_closed": "registration is not open now",
    "self_partner": "a team is two different players",
    "already_registered": "one of the players is already in a team of this tournament",
    "team_exists": "a team with this id already exists",
    "no_team": "no such team",
    "not_partner": "only the invited partner may confirm a team",
    "not_in_team": "the player is not in this team",
    "check_in_closed": "the check-in is not open now",
    "not_confirmed": "the team's partner has not confirmed",
    "too_early": "the tournament does not start yet",
    "not_running": "the tournament is not running",
    "round_in_progress": "the current round has matches without a result",
    "no_more_rounds": "every round has been played",
    "not_paired_by_rounds": "elimination matches are paired as their teams become known",
    "no_match": "no such match",
    "bad_seed": "a round's seed is at least 16 bytes of hex",
    "result_exists": "the match already has a result; an organizer may override it",
    "draw_not_allowed": "an elimination match has a winner",
    "override_too_late": "a team of this match has started its next match",
    "rated_needs_people": "bot teams play in unrated tournaments only",
    "tournament_full": "a late joiner finds the tournament at max_teams already",
    "late_join_needs_swiss": "teams may join late in Swiss tournaments only",
    "bad_seeds": "a seeding names a team twice, or one not registered",
    "not_swiss": "pairings are set by hand for Swiss rounds only",
    "bad_round": "only the next round's pairings may be set",
    "bad_pairings": "hand pairings name every team still in once (a bye when odd)",
    "no_show_ban": "a player missed a tournament match lately (24 h, doubling for each, "
                   "at most 30 days); the organizer may waive it",
}
