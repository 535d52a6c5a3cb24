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
