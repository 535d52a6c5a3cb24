"""Every error code a client can meet, in one registry: its HTTP status, its meaning,
an example message and the extra fields it carries.

A service raises a code; the HTTP status, the OpenAPI answers of each route and the
table in docs/protocol.md all come from here, so none of them can disagree with
another. The rules' codes (``engine/errors.py``) and the tournament's
(``services/tournaments/errors.py``) are listed here too and read back from here by
those modules: imports point ``schemas`` <- ``engine`` <- ``services``.

Fields: ``retry_after`` (seconds, sent as the ``Retry-After`` header) and ``until``
(ms since the epoch, in an ``error`` frame).
"""

from __future__ import annotations

import msgspec

RETRY_AFTER = "retry_after"
UNTIL = "until"


class ErrorCode(msgspec.Struct, frozen=True):
    code: str
    status: int  # the HTTP status it answers with (an error frame carries no status)
    meaning: str  # plain words, for the docs
    example: str = ""  # a message a client may see, for the OpenAPI examples
    fields: tuple[str, ...] = ()

    @property
    def message(self) -> str:
        return self.example or self.meaning


def _codes(status: int, rows: dict[str, str | tuple[str, str]],
           fields: tuple[str, ...] = ()) -> list[ErrorCode]:
    """Rows of one status: code -> meaning, or code -> (meaning, example message)."""
    out = []
    for code, row in rows.items():
        meaning, example = row if isinstance(row, tuple) else (row, "")
        out.append(ErrorCode(code, status, meaning, example, fields))
    return out


# --- the game's rules (engine/errors.py): the game's state refuses the command ---------------
RULES = _codes(409, {
    "game_not_started": "no game has started on this stream",
    "game_already_started": "the game has already started",
    "game_over": "the match is over",
    "match_over": "a hand was dealt after the match ended",
    "wrong_phase": "the command does not apply in the current phase",
    "not_a_seat": "seats are 0 to 3",
    "not_your_turn": "another seat is to act",
    "already_bid": "the seat has already bid this hand",
    "bid_out_of_range": "a bid is 0 (nil) to 13, or 1 to 13 without nil",
    "nil_not_allowed": "these rules have no nil bid",
    "blind_nil_not_offered": "blind nil is off, the seat looked, or its team does not "
                             "trail enough",
    "unknown_card": "not a card code",
    "card_not_in_deck": "the card is not in this deck variant",
    "card_not_in_hand": "the seat does not hold that card",
    "must_follow_suit": "the seat holds the led suit and must follow it",
    "spades_not_broken": "trumps cannot be led until broken, unless the hand holds only "
                         "trumps",
    "wrong_dealer": "the deal passes to the left; another seat deals this hand",
    "bad_deal": "a deal is four hands of 13 distinct cards making up the deck",
    "hand_over": "all 13 tricks of the hand have been played",
    "wrong_pass_count": "the seat must pass exactly the number of cards the rules say",
    "already_passed": "the seat has already passed its cards",
    "cards_not_seen": "the seat has not looked at its cards yet (blind nil is still open)",
    "stale_clock": "the turn moved on or the deadline is later than the expiry",
    "fallback_missing": "a clock expiry that makes the seat's move must carry that move",
    "not_a_bot_seat": "the seat is not being played by a bot",
    "seat_is_bot": ("a bot plays the seat (since its player left: subscribe again to take "
                    "it back)", "a bot plays seat 2 since you left; subscribe again"),
})
BAD_SEED = ErrorCode("bad_seed", 400, "a shuffle or a round's seed is at least 16 bytes of hex")

# --- the tournament service (services/tournaments/errors.py) --------------------------------
TOURNAMENT = [
    *_codes(403, {
        "not_organizer": "only the tournament's organizer may do this",
        "not_partner": "only the invited partner may confirm a team",
        "not_in_team": "the player is not in this team",
        "no_show_ban": "a player missed a tournament match lately (24 h, doubling for each, "
                       "at most 30 days); the organizer may waive it",
    }),
    *_codes(404, {
        "no_tournament": "no such tournament",
        "no_team": "no such team",
        "no_match": "no such match",
    }),
    *_codes(409, {
        "tournament_exists": "a tournament with this id was already created",
        "already_started": "the tournament has started; its settings are fixed",
        "tournament_over": "the tournament is finished or cancelled",
        "registration_closed": "registration is not open now",
        "already_registered": "one of the players is already in a team of this tournament",
        "team_exists": "a team with this id already exists",
        "team_name_taken": "another team of this tournament has that name (in any case)",
        "check_in_closed": "the check-in is not open now",
        "not_confirmed": "the team's partner has not confirmed",
        "too_early": "the tournament does not start yet",
        "not_running": "the tournament is not running; also the answer to hand pairings "
                       "before round 1 has begun",
        "round_in_progress": "the current round has matches without a result",
        "no_more_rounds": "every round has been played",
        "not_paired_by_rounds": "elimination matches are paired as their teams become known",
        "result_exists": "the match already has a result; an organizer may override it",
        "override_too_late": "a team of this match has started its next match",
        "tournament_full": "a late joiner finds the tournament at max_teams already",
        "not_enough_teams": "starting now would leave fewer than min_teams teams (confirmed, "
                            "and checked in when the tournament has a check-in)",
    }),
    *_codes(400, {
        "max_below_min": "max_teams is smaller than min_teams",
        "bad_window": "registration must open before it closes, and close by the start",
        "check_in_outside_window": "the check-in would open before registration opens",
        "draw_in_elimination": "elimination needs a winner: rules with tie \"draw\" are "
                               "refused",
        "duplicate_needs_rounds": "duplicate deals are for Swiss and round robin",
        "too_many_rounds": "a Swiss tournament has fewer rounds than two thirds of its teams",
        "too_many_groups": "each round-robin group needs at least two teams",
        "bad_tiebreaks": "a tie-break the format does not have, or one named twice",
        "rated_needs_ranked_rules": "only a tournament on the ranked preset may be rated",
        "self_partner": "a team is two different players",
        "draw_not_allowed": "an elimination match has a winner",
        "rated_needs_people": "bot teams (and bot seats) play unrated only",
        "late_join_needs_swiss": "teams may join late in Swiss tournaments only",
        "bad_seeds": "a seeding names a team twice, or one not registered",
        "not_swiss": "pairings are set by hand for Swiss rounds only",
        "bad_round": "only the next round's pairings may be set",
        "bad_pairings": "hand pairings name every team still in once (a bye when odd)",
        "bad_tournament_id": "a tournament id is a UUID, the same in the path and the command",
    }),
    BAD_SEED,
]

# --- the platform: the HTTP edge, the game workers, the store -------------------------------
PLATFORM = [
    *_codes(400, {
        "bad_request": ("a malformed body, parameter or command",
                        "Expected `str` of length <= 32 (name)"),
        "bad_id": ("an id is 1 to 64 letters, digits, '-' or '_'", "bad id 'a b'"),
        "not_allowed": "a command only the platform sends",
        "http_error": "another refusal of the HTTP layer",
    }),
    *_codes(404, {"not_found": ("no such route", "Not Found")}),
    *_codes(405, {"method_not_allowed": ("the route does not take this method",
                                         "Method Not Allowed")}),
    *_codes(413, {"body_too_large": ("the body is over the size limit (10 MB), on any route "
                                     "that reads one",
                                     "Request Entity Too Large")}),
    *_codes(409, {
        "conflict": "the game moved on under the command; send the same command id again",
        "game_exists": "another command created a game with this id",
        "command_id_reused": "this command id was already used for a different command "
                             "(another card, bid or seat); nothing was applied. The very "
                             "same command again with its id is a retry and gets the first "
                             "answer",
        "rejected": "the game refused the command without a code",
    }),
    *_codes(503, {
        "unavailable": ("the database or the store could not be reached; retry after "
                        "Retry-After seconds", "the store is not answering now; try again shortly"),
        "busy": "the game's inbox is full; send the same command id again shortly",
        "not_owner": "the game is moving between workers; send the same command id again",
        "game_unavailable": ("no game worker answered in time; retry (the same command id)",
                             "no game worker answered"),
        "ratings_unavailable": ("the ratings service did not answer in time; retry",
                                "the ratings service did not answer; try again"),
        "tournaments_unavailable": ("the tournament service did not answer in time; retry",
                                    "the tournament service did not answer; try again"),
        "no_room_code": ("no free room code was found; try again", "no free room code; "
                         "try again"),
    }, (RETRY_AFTER,)),
    *_codes(500, {
        "internal_error": ("the server failed on the request (logged with the request id "
                           "the message names)", "internal error; request id 5f2c..."),
        "internal": "the gateway failed on this frame (logged)",
    }),
]

# --- the lobby: accounts, tables, matches, the queue, the socket ----------------------------
LOBBY = [
    *_codes(400, {
        "bad_json": ("the frame is not JSON", "the frame is not a JSON object"),
        "bad_frame": ("not a JSON object, or a binary frame", "send text frames of JSON"),
        "unknown_type": ("no or unknown frame `type`", "unknown or missing frame type"),
        "bad_field": ("a field is missing, unknown or of the wrong type or range",
                      "Expected `int` >= 0 (seat)"),
        "frame_too_large": ("over the frame size limit", "frames are at most 8192 bytes"),
        "unsupported_version": ("the frame's `v` is newer than this server reads, and the "
                                "frame does not read as the version it knows",
                                "bid v2: this server reads frames up to v1"),
        "chat_too_long": ("over SPADES_CHAT_MAX_CHARS", "chat lines are at most 200 "
                          "characters"),
        "bad_rules": ("not a preset, or an option out of range (docs/rules.md)",
                      "unknown preset 'hous'"),
        "partner_is_guest": "the partner must be a registered player",
        "name_too_short": ("a player's name has at least two letters or digits",
                           "a name has at least 2 letters or digits"),
        "bad_origin": "a person's table starts with `table`, a tournament's with `tournament`",
        "bad_ready": "a ready check lasts 10 to 600 seconds",
        "bad_seats": ("four seats, each a player or a bot level, a player at one seat only",
                      "a player sits at one seat only"),
        "event_out_of_range": ("the game has no event at that number",
                               "the game has events 0 to 57"),
        "bad_outcome": "an outcome filter is one of the listed outcomes",
    }),
    *_codes(401, {
        "unauthenticated": ("no bearer token", "a bearer token is required"),
        "token_expired": ("the token has expired; sign in again (a socket then closes "
                          "with 4401)", "the token has expired; sign in again"),
        "bad_token": ("a forged or malformed token", "the token is not valid"),
        "bad_credentials": ("unknown name or wrong password (the same answer for both)",
                            "unknown name or wrong password"),
    }),
    *_codes(403, {
        "operators_only": ("this needs an operator account, as it stands now (a revoked "
                           "role is refused at once, whatever the token says)",
                           "this needs an operator account"),
        "organizers_only": ("this needs an organizer account (or an operator's), as it "
                            "stands now (a revoked role is refused at once, whatever the "
                            "token says)", "this needs an organizer account "
                            "(spades organizer grant NAME)"),
        "registered_only": ("ranked games and tournament teams are for registered accounts",
                            "ranked games are for registered accounts; sign up to queue"),
        "more_games_needed": ("this deployment asks for SPADES_RANKED_MIN_GAMES finished "
                              "games before ranked play (none by default); `GET /v1/queue` "
                              "says how many are missing", "finish 3 more games to play "
                              "ranked (GET /v1/queue counts them)"),
        "room_code_required": ("a private table's game is watched by its own people, or "
                               "with its room code (`code`)", "this game's table is private; "
                               "send its room code"),
        "not_host": ("only the table's host may do that", "only the table's host may do "
                     "that"),
        "not_in_game": "this socket does not follow that game, or you hold no seat and did "
                       "not ask to spectate",
        "not_your_seat": ("the command acts for a seat you do not hold (spectators hold "
                          "none)", "you do not hold seat 2"),
        "not_in_match": "you have no seat in this match",
        "not_your_game": ("a finished game is replayed by the players who sat in it "
                          "(operators: `/v1/admin/games`)", "you did not play in game g-9c1d"),
        "deal_not_finished": ("a game of a duplicate tournament's round is not shown to one "
                              "who plays in that round and has not finished their own match "
                              "of it: the tables play the same deals", "you have not finished "
                              "these deals at your own table yet"),
    }),
    *_codes(403, {"queue_cooldown": ("you left or missed a ranked match lately; queue again "
                                     "after `until` (ms)",
                                     "you may queue again after a cooldown"),
                  "ranked_barred": ("an upheld fair-play case bars the account from ranked "
                                    "until `until` (ms) (a partner named who is barred is "
                                    "`partner_unavailable`); docs/fairplay.md",
                                    "barred from ranked play until 2027-01-06 after a "
                                    "fair-play review")}, (UNTIL,)),
    *_codes(404, {
        "table_not_found": ("no such table (or no table has that room code)",
                            "no table t-1a2b3c"),
        "game_not_found": ("no such game", "no game g-9c1d"),
        "player_not_found": ("no such player", "no player p-7f3a"),
        "account_not_found": ("no registered account by that name",
                              "no registered account named 'Ada'"),
        "match_not_found": ("no such match", "no match m-1"),
        "not_queued": "you are not in the queue",
        "case_not_found": ("no fair-play case with that id", "no case c-5e1f"),
    }),
    *_codes(409, {
        "name_taken": ("the name, or a look-alike of it, is registered already",
                       "'Ada' is (or looks like) a registered name"),
        "public_rules_fixed": ("a public table plays a preset as it is; open a private "
                               "table to change rules", "a public table keeps its preset"),
        "table_started": ("the table's game has started", "the game has already started"),
        "table_full": ("every seat is taken", "every seat is taken"),
        "seat_taken": ("that seat is taken", "seat 2 is taken"),
        "table_not_started": "nothing to watch yet (join the table instead)",
        "not_seated": "you hold no seat at this table",
        "match_table": "a ranked or tournament match is played once: no play again",
        "game_running": "the table's game is still being played",
        "no_game_yet": "the table has not played a game yet",
        "seated_cannot_spectate": "you hold a seat in that game; follow it as that seat",
        "match_id_reused": "a match with this id was opened with other seats",
        "match_failed": "the match could not start",
        "match_closed": "the match is no longer waiting for its players",
        "in_game": ("finish your running game first: a person plays one game at a time, "
                    "so a seat at another table, a start, a match's confirmation or the "
                    "queue waits until it ends", "finish your running game first: a "
                    "person plays one game at a time"),
        "already_queued": "you are in the queue already",
        "partner_unavailable": "the partner is yourself, unknown, a guest, queued or playing",
        "case_decided": ("the fair-play case was decided already; a decision stands",
                         "case c-5e1f was decided already (upheld)"),
        "game_not_rated": ("fair play reviews rated games: an unrated game cannot be "
                           "reported", "game g-9c1d is not rated"),
    }),
    *_codes(429, {
        "rate_limited": ("too many attempts (sign-ins, frames); wait Retry-After seconds. "
                         "A frame with a `command_id` was dropped, not applied: send it "
                         "again", "too many failed sign-ins; try again in 60 s"),
    }, (RETRY_AFTER,)),
    *_codes(429, {
        "chat_rate_limited": ("over SPADES_CHAT_PER_SECOND", "too many chat lines; wait a "
                              "moment"),
        "too_many_sockets": "at most SPADES_WS_SOCKETS_PER_PLAYER sockets per player; the "
                            "new socket closes (4429)",
        "too_many_games": "one socket follows at most SPADES_WS_GAMES_PER_SOCKET (8) games; "
                          "unsubscribe first",
        "too_many_tournaments": "one socket follows at most 8 tournaments; send "
                                "`watch_tournament` with `\"on\": false` first",
    }),
]


def _index(*groups: list[ErrorCode]) -> dict[str, ErrorCode]:
    out: dict[str, ErrorCode] = {}
    for group in groups:
        for e in group:
            if out.get(e.code, e) != e:
                raise ValueError(f"error code {e.code!r} is registered twice, differently")
            out[e.code] = e
    return out


REGISTRY: dict[str, ErrorCode] = _index(RULES, [BAD_SEED], TOURNAMENT, PLATFORM, LOBBY)
RULE_CODES = (*(e.code for e in RULES), BAD_SEED.code)
TOURNAMENT_CODES = tuple(e.code for e in TOURNAMENT)


class UnknownCode(KeyError):
    """A code raised that the registry does not list: a programming error, caught by tests."""


def lookup(code: str) -> ErrorCode:
    try:
        return REGISTRY[code]
    except KeyError:
        raise UnknownCode(code) from None


def status_of(code: str) -> int:
    return lookup(code).status


def from_service(code: str) -> str:
    """A code another service replied with, as a client may see it: registered codes
    pass; the bus's own "400" (the request could not be read) is ``bad_request``, and
    anything else (its "500": the handler failed) ``internal_error``."""
    if code in REGISTRY:
        return code
    return "bad_request" if code == "400" else "internal_error"


__all__ = ["REGISTRY", "RETRY_AFTER", "RULE_CODES", "TOURNAMENT_CODES", "UNTIL", "ErrorCode",
           "UnknownCode", "from_service", "lookup", "status_of"]
