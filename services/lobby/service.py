"""The lobby: the public HTTP API and the WebSocket gateway.

This module builds every part and wires the rooms together (``services/lobby/<room>/``,
docs/architecture.md "Layout"). Every lobby error is a ``LobbyError`` with a stable
code, turned into an HTTP answer in one place (``http/errors.py``) and into an error
frame in another (``edge/socket.py``).
"""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

from schemas import subjects
from schemas.matches import OPEN_MATCH, MatchOpened, OpenMatch
from services.lobby.accounts.auth import Tokens
from services.lobby.accounts.guests import GuestPurge
from services.lobby.accounts.standings import Standings
from services.lobby.base.errors import LobbyError
from services.lobby.base.settings import LobbySettings
from services.lobby.base.throttle import CodeGuesses, Throttle, limit
from services.lobby.clients.broadcasts import Broadcasts
from services.lobby.clients.gameworkers import GameClient
from services.lobby.clients.ratings import RatingsBus
from services.lobby.clients.tournaments import TournamentBus
from services.lobby.edge import socket
from services.lobby.edge.gateway import Gateway
from services.lobby.games import operators
from services.lobby.games import store as games_store
from services.lobby.games.live import Live
from services.lobby.games.projection import projection_handlers
from services.lobby.games.reports import Reports
from services.lobby.history.pages import History
from services.lobby.history.projection import HistoryProjection
from services.lobby.http import apidocs
from services.lobby.http.errors import bad_id_response, error_response
from services.lobby.http.routes import platform_route, router
from services.lobby.matches.opening import Matches
from services.lobby.matches.outcomes import Outcomes
from services.lobby.matches.sweeps import Expiry, Sweeper
from services.lobby.ranked.matchmaker import Matchmaker
from services.lobby.ranked.queue import Queue
from services.lobby.tables import store as tables_store
from services.lobby.tables.tables import Tables
from services.lobby.tournaments.relay import Tournaments
from services.platform import bus, logs, version
from services.platform.busclient import Refused
from services.platform.consumer import Consumer
from services.platform.runtime import Runtime
from services.platform.settings import StartupError

NAME = "lobby"

__all__ = ["LobbyError", "LobbySettings", "setup"]


async def setup(rt: Runtime) -> None:
    s = rt.settings
    assert isinstance(s, LobbySettings)
    tokens = _tokens(s)
    throttle, guesses = _limits(s)
    games = GameClient(rt.client, rt.names, s.request_timeout_seconds)
    broadcasts = Broadcasts(rt.client, rt.names)
    await bus.ensure_stream(rt.client, bus.StreamSpec(
        rt.names.lobby_matches_stream, (rt.names.lobby_matches_all,),
        duplicate_window=s.js_duplicate_window_seconds, replicas=s.js_replicas))
    matches = Matches(rt.pool, games, broadcasts, Outcomes(rt.pool, rt.client, rt.names))
    tables = Tables(rt.pool, games, broadcasts, matches, guesses)
    await _keep(rt, Sweeper(matches, s.match_sweep_seconds),
                Expiry(matches, s.ready_check_poll_seconds))
    # Each ask in a task of its own: a tournament asks for a round's tables many at once,
    # and one at a time they queued behind each other's game creation (docs/scaling.md).
    rt.endpoints.append(bus.Endpoint(OPEN_MATCH, OpenMatch, _open_match(matches), set()))
    ratings = RatingsBus(rt.client, rt.names, s.request_timeout_seconds)
    tournaments = Tournaments(rt.pool, TournamentBus(rt.client, rt.names,
                                                     s.request_timeout_seconds), ratings,
                              broadcasts)
    # The ranked queue is the service's: the gateway routes frames and closing sockets to
    # it, the matchmaker and the HTTP routes use it. Its id names this copy's gateway.
    queue = Queue(rt.pool, games, broadcasts, matches, ratings, s, uuid.uuid4().hex,
                  partial(games_store.finished_games, rt.pool))
    gateway = Gateway(tables, games, broadcasts, rt.names, s, tournaments, queue)
    try:
        matchmaker = Matchmaker(rt.pool, queue, matches, s, s.instance_id)
    except (ValueError, LobbyError) as exc:
        raise StartupError(f"ranked_rules is invalid: {exc}") from None
    rt.drains.append(gateway.drain)  # SIGTERM: the sockets move to another copy first
    await _keep(rt, queue.heartbeat, gateway, matchmaker,
                GuestPurge(rt.pool, s.token_ttl_seconds, s.guest_purge_every_seconds,
                           tables_store.seated_players))
    origins = frozenset(o.strip() for o in s.ws_allowed_origins.split(",") if o.strip())
    rt.openapi = apidocs.config(version())
    rt.routes.extend(apidocs.routes())
    # Past the lobby's own cap a frame gets an error frame; far past it uvicorn cuts it off.
    rt.ws_max_size = 16 * s.ws_max_frame_bytes
    rt.routes.append(platform_route(rt.client, rt.names))
    rt.routes.append(router(
        pool=rt.pool, tokens=tokens, throttle=throttle, tables=tables, gateway=gateway,
        standings=Standings(rt.pool, ratings), tournaments=tournaments, matches=matches,
        queue=queue, operators=operators.Operators(rt.pool, games, s.operator_cache_games),
        history=History(rt.pool, ratings, tournaments, games),
        live=Live(rt.pool, ratings, gateway.unseen, tournaments), unseen=gateway.unseen,
        ratings=ratings, reports=Reports(rt.pool, ratings, s.reports_per_player)))
    rt.routes.append(socket.handler(gateway, tokens, origins, s.ws_max_frame_bytes))
    await _projections(rt, s, games, broadcasts)
    rt.exception_handlers[LobbyError] = error_response
    rt.exception_handlers[subjects.BadId] = bad_id_response


def _tokens(s: LobbySettings) -> Tokens:
    secret = s.token_secret
    if not secret:
        secret = secrets.token_hex(32)
        logs.get(NAME).warning("token_secret_unset",
                               note="tokens are valid on this process only")
    return Tokens(secret, s.token_ttl_seconds)


def _limits(s: LobbySettings) -> tuple[Throttle, CodeGuesses]:
    try:
        limit(s.reports_per_player)  # read when the first report comes: checked now
        return (Throttle(s.login_failures_per_account, s.login_failures_per_address,
                         s.signups_per_address),
                CodeGuesses(s.room_code_misses_per_player))
    except ValueError as exc:
        raise StartupError(f"a rate limit setting is invalid: {exc}") from None


def _open_match(matches: Matches) -> Callable[[OpenMatch], Awaitable[MatchOpened]]:
    """``svc.lobby.open_match``: the tournament service's way to start a game."""
    async def open_match(req: OpenMatch) -> MatchOpened:
        try:
            return await matches.open(req)
        except LobbyError as exc:
            raise Refused(exc.code, exc.message) from None

    return open_match


async def _projections(rt: Runtime, s: LobbySettings, games: GameClient,
                       broadcasts: Broadcasts) -> None:
    """The consumers of games' starts and ends: the games rows, tables closed, a ranked
    game's leavers, and each player's finished games."""
    projection = projection_handlers(s.queue_leaver_seconds, broadcasts)
    played = HistoryProjection(games)
    for durable, event_type, handler, after_commit, before in (
            (subjects.LOBBY_GAMES_STARTED, subjects.GAME_STARTED, projection.started, None, None),
            (subjects.LOBBY_GAMES_ENDED, subjects.GAME_ENDED, projection.ended,
             projection.ended_committed, None),
            (subjects.LOBBY_HISTORY, subjects.GAME_ENDED, played.ended, None, played.before)):
        ordered = (projection.in_game_order(handler)
                   if durable != subjects.LOBBY_HISTORY else None)
        await _keep(rt, Consumer(rt.client, rt.pool, rt.consumer(
            durable, rt.names.game_events_of_type(event_type)), handler,
            after_commit=after_commit, before=before, batch_handler=ordered))


async def _keep(rt: Runtime, *parts: Any) -> None:
    """Start each part, and keep it to be stopped with the service (in reverse)."""
    for part in parts:
        await part.start()
        rt.workers.append(part)
