"""The lobby's settings: one declaration, read by the runtime from the environment
and by the HTTP routes and the WebSocket gateway as they run."""

from __future__ import annotations

from typing import Annotated

import msgspec

from services.platform.settings import Settings


class LobbySettings(Settings, frozen=True, kw_only=True):
    http_port: Annotated[int, msgspec.Meta(
        ge=0, le=65535, description="Port of the public HTTP API (and health, metrics).")] = 8000
    request_timeout_seconds: Annotated[float, msgspec.Meta(
        gt=0, description="How long the lobby waits for another service's reply.")] = 2.0
    token_secret: Annotated[str, msgspec.Meta(
        description="Secret that signs tokens (HS256). Every lobby copy needs the same one; "
                    "empty: a random one per process (tokens die with it).")] = ""
    token_ttl_seconds: Annotated[int, msgspec.Meta(
        ge=1, description="How long a token is valid after sign-in.")] = 86_400
    ws_allowed_origins: Annotated[str, msgspec.Meta(
        description="Comma-separated origins whose pages may open /v1/ws besides the "
                    "lobby's own; '*' allows any.")] = ""
    ws_max_frame_bytes: Annotated[int, msgspec.Meta(
        ge=256, description="Largest WebSocket frame a client may send.")] = 4096
    ws_frames_per_second: Annotated[float, msgspec.Meta(
        gt=0, description="Frames per second a socket may send on average.")] = 20.0
    ws_frame_burst: Annotated[int, msgspec.Meta(
        ge=1, description="Frames a socket may send at once above the average.")] = 40
    ws_sockets_per_player: Annotated[int, msgspec.Meta(
        ge=1, description="Open sockets one player may hold on one lobby copy.")] = 4
    chat_max_chars: Annotated[int, msgspec.Meta(
        ge=1, description="Longest chat line.")] = 200
    chat_per_second: Annotated[float, msgspec.Meta(
        gt=0, description="Chat lines per second a socket may send on average.")] = 1.0
    chat_burst: Annotated[int, msgspec.Meta(
        ge=1, description="Chat lines a socket may send at once.")] = 3
    disconnect_grace_seconds: Annotated[float, msgspec.Meta(
        ge=0, description="How long a seated player who dropped keeps the seat before "
                          "the game is told they left.")] = 30.0
    resume_max_events: Annotated[int, msgspec.Meta(
        ge=0, description="A resuming socket gets the missed events up to this many, "
                          "else a fresh snapshot.")] = 64
    watch_delay_tricks: Annotated[int, msgspec.Meta(
        ge=0, description="A ranked or tournament game is anyone's to watch this many "
                          "completed tricks behind: an event reaches such a watcher once "
                          "this many tricks were completed after it (all of it at the "
                          "end). Its players, its organizer and operators watch live.")] = 3
    role_check_seconds: Annotated[float, msgspec.Meta(
        gt=0, description="How often an open socket that watches a delayed game live by "
                          "a role (operator, the tournament's organizer) has the role "
                          "checked again; a revoked one's watch turns delayed.")] = 1.0
    login_failures_per_account: Annotated[str, msgspec.Meta(
        description="Failed logins one account name may take, from any address, "
                    "e.g. '10/15 minutes'; past it: 429 until the window moves on.")
    ] = "10/15 minutes"
    login_failures_per_address: Annotated[str, msgspec.Meta(
        description="Failed logins one client address may make, whatever the account.")
    ] = "50/15 minutes"
    signups_per_address: Annotated[str, msgspec.Meta(
        description="New accounts (guests and registered) one client address may create.")
    ] = "20/hour"
    room_code_misses_per_player: Annotated[str, msgspec.Meta(
        description="Wrong room codes one player may try (joining or watching a private "
                    "table); past it: 429 until the window moves on.")
    ] = "20/10 minutes"
    reports_per_player: Annotated[str, msgspec.Meta(
        description="Games one player may report for fair play (POST /v1/games/{id}/report) "
                    "in a window; past it: 429 until the window moves on.")
    ] = "10/hour"
    guest_purge_every_seconds: Annotated[float, msgspec.Meta(
        gt=0, description="How often idle guests are deleted: guests whose token has "
                          "expired (token_ttl_seconds after sign-in) and who hold no seat "
                          "at an open or playing table.")] = 3600.0
    match_sweep_seconds: Annotated[float, msgspec.Meta(
        gt=0, description="How often a lobby copy finishes matches left half-started (the "
                          "match recorded, its game not created: the starter died or no "
                          "game worker answered).")] = 5.0
    ready_check_poll_seconds: Annotated[float, msgspec.Meta(
        gt=0, le=10, description="How often a lobby copy ends the ready checks whose "
                                 "deadline passed (the match is then not started and its "
                                 "absent seats named).")] = 1.0
    operator_cache_games: Annotated[int, msgspec.Meta(
        ge=1, description="Game logs (and their folded states) an operator's replay keeps "
                          "in memory on one lobby copy.")] = 64
    ws_games_per_socket: Annotated[int, msgspec.Meta(
        ge=1, description="Games one socket may follow at once.")] = 8
    ws_outbox_frames: Annotated[int, msgspec.Meta(
        ge=16, description="Frames waiting to be written to one socket; a client that "
                           "falls this far behind is disconnected, not waited for.")] = 4096
    follow_linger_seconds: Annotated[float, msgspec.Meta(
        ge=0, description="How long a gateway keeps following a game after its last "
                          "subscriber left (a reload comes back to a warm game).")] = 10.0
    ranked_min_games: Annotated[int, msgspec.Meta(
        ge=0, description="Finished games a registered account needs before it may queue "
                          "for ranked games: every ended game it held a seat in from the "
                          "start, whatever its table, rules or result, rated or not, "
                          "with bots or not, including one it left. 0: a new account "
                          "plays rated at once, provisionally (docs/ratings.md).")] = 0
    ranked_rules: Annotated[str, msgspec.Meta(
        description="The rules of ranked games: a preset name, or a JSON object "
                    "{\"preset\": NAME, **options} (docs/rules.md).")] = "quick"
    queue_cycle_seconds: Annotated[float, msgspec.Meta(
        gt=0, description="How often the matchmaker (one lobby copy, leased) looks for "
                          "matches among the waiting tickets.")] = 5.0
    queue_accept_seconds: Annotated[int, msgspec.Meta(
        ge=5, le=300, description="How long the four players of a match found have to "
                                  "accept it.")] = 15
    queue_invite_seconds: Annotated[float, msgspec.Meta(
        gt=0, description="How long a partner has to answer an invite to queue as a "
                          "pair.")] = 60.0
    queue_heartbeat_seconds: Annotated[float, msgspec.Meta(
        gt=0, description="How often a gateway stamps the tickets of its sockets; the "
                          "tickets of a gateway silent for three of these expire.")] = 5.0
    queue_cooldown_seconds: Annotated[float, msgspec.Meta(
        ge=0, description="Cooldown of a player who did not accept a match; it doubles "
                          "with each miss within a day.")] = 60.0
    queue_cooldown_max_seconds: Annotated[float, msgspec.Meta(
        ge=0, description="The longest cooldown for missed matches.")] = 7200.0
    queue_bar_recheck_seconds: Annotated[float, msgspec.Meta(
        gt=0, description="How long the matchmaker trusts that a queued player is not "
                          "barred from ranked before asking the ratings service again; "
                          "a bar published when it is decided is acted on at once.")] = 60.0
    queue_leaver_seconds: Annotated[float, msgspec.Meta(
        ge=0, description="Cooldown of a player who left a rated game (not the partner); "
                          "the matcher also keeps recent leavers apart from others "
                          "this long.")] = 7200.0
    matchmaker_lease_seconds: Annotated[float, msgspec.Meta(
        gt=0, description="The matchmaker's lease: another lobby copy takes over this "
                          "long after the leader stops renewing.")] = 15.0
