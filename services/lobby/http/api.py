"""The lobby's own HTTP routes under ``/v1`` (sessions, tables, the caller's games):
decode, call one room's function, encode.

Who calls arrives as ``me`` (``deps``: the claims of ``Authorization: Bearer <token>``)
on every route but the sign-in ones; errors become ``ApiError`` bodies in ``service.py``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import msgspec
from litestar import Controller, Response, get, patch, post
from litestar.params import Parameter

from schemas.api import (
    CreateTable,
    GameSummary,
    GuestSignIn,
    JoinByCode,
    JoinTable,
    LiveGames,
    Login,
    Me,
    Register,
    Session,
    SetBots,
    SetTableOptions,
    Table,
    TableList,
    WatchByCode,
)
from services.lobby.accounts import auth
from services.lobby.accounts import store as accounts
from services.lobby.accounts.auth import Claims, Tokens
from services.lobby.base.store import Pool
from services.lobby.base.throttle import Throttle
from services.lobby.edge.gateway import Gateway
from services.lobby.games.live import Live
from services.lobby.http.apidocs import (
    BEARER,
    BODY,
    GAME_REFUSALS,
    SIGNED_IN,
    STARTS,
    STORE,
    answers,
)
from services.lobby.http.deps import signed_in
from services.lobby.http.params import GameId, RoomCode, TableId
from services.lobby.tables.tables import Tables

STATIC = Path(__file__).parents[1] / "static"  # services/lobby/static

SESSION = {"token": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJwLTdmM2EifQ.c2lnbmF0dXJl",
           "player_id": "p-7f3a", "name": "Ada", "expires_at": 1798761600, "role": "player"}
TABLE = {"table_id": "t-1a2b3c", "host": "p-7f3a", "private": True, "code": "K7QX2M",
         "rules": {"preset": "house", "target": 500}, "preset": "house",
         "seats": [{"seat": 0, "player_id": "p-7f3a", "name": "Ada"},
                   {"seat": 1, "bot": "basic", "name": "Bot 2"},
                   {"seat": 2}, {"seat": 3}],
         "free_seats": [2, 3], "state": "open", "game_id": None, "banter": True}
GAME = {"game_id": "g-9c1d", "table_id": "t-1a2b3c",
        "players": [{"seat": 0, "player_id": "p-7f3a", "name": "Ada"},
                    {"seat": 1, "bot": "basic", "name": "Bot 2"},
                    {"seat": 2, "player_id": "p-11b0", "name": "Ben"},
                    {"seat": 3, "bot": "expert", "name": "Bot 4"}],
         "rules": {"preset": "house", "target": 500}, "state": "play", "version": 57,
         "hand_no": 2, "scores": [120, 64], "bags": [3, 1], "winner": None, "end_reason": "",
         "origin": "tournament", "tournament": {
             "tournament_id": "5b0e7c2a-3f1d-4c8e-9a61-2d7f0e4b9c13", "name": "Friday Night Spades",
             "round_no": 2, "round_name": "Final", "home": "Aces", "away": "Spaders"}}
LIVE = {"ratings_complete": True, "games": [{
    "game_id": "g-9c1d", "table_id": "t-4d5e6f", "origin": "queue", "rated": True,
    "players": [{"seat": 0, "player_id": "p-7f3a", "name": "Ada", "rating": 1712},
                {"seat": 1, "player_id": "p-21c4", "name": "Cy", "rating": 1650},
                {"seat": 2, "player_id": "p-11b0", "name": "Ben", "rating": 1690},
                {"seat": 3, "player_id": "p-9e02", "name": "Di", "rating": 1604}],
    "started_at": 1798700000000, "rating": 1664, "delayed": True}, {
    "game_id": "g-5a6b", "table_id": "t-1a2b3c", "origin": "table", "rated": False,
    "players": [{"seat": 0, "player_id": "p-3c3c", "name": "Eve", "guest": True},
                {"seat": 1, "bot": "basic", "name": "Bot 2"},
                {"seat": 2, "bot": "basic", "name": "Bot 3"},
                {"seat": 3, "bot": "basic", "name": "Bot 4"}],
    "started_at": 1798700300000, "rating": None, "delayed": False}, {
    "game_id": "g-7e8f", "table_id": "t-9f8e7d", "origin": "tournament", "rated": False,
    "players": [{"seat": i, "bot": "expert", "name": f"Bot {i + 1}"} for i in range(4)],
    "started_at": 1798700200000, "rating": None, "delayed": True, "tournament": {
        "tournament_id": "5b0e7c2a-3f1d-4c8e-9a61-2d7f0e4b9c13", "name": "Friday Night Spades",
        "round_no": 2, "round_name": "Final", "home": "Robots", "away": "Droids"}}]}


class SessionController(Controller):
    """Signing in: as a guest, by registering, or to a registered name."""

    @post("/v1/auth/guest", status_code=201, summary="Sign in as a guest", tags=["auth"],
          responses=answers(201, Session, SESSION,
                            *BODY, "name_taken", "rate_limited", *STORE))
    async def guest(self, address: str, pool: Pool, tokens: Tokens, throttle: Throttle,
                    data: GuestSignIn) -> Session:
        """A guest's name need not be unique among guests, but may not look like a
        registered name. 429 `rate_limited`: too many new accounts from one address."""
        throttle.sign_up(address)
        return await auth.guest(pool, tokens, data.name)

    @post("/v1/auth/register", status_code=201, summary="Register a name with a password",
          tags=["auth"], responses=answers(201, Session, SESSION,
                                           *BODY, "name_taken", "rate_limited", *STORE))
    async def register(self, address: str, pool: Pool, tokens: Tokens, throttle: Throttle,
                       data: Register) -> Session:
        """Signs in too. 409 `name_taken`: the name, or a look-alike of it, is registered
        already. 429 `rate_limited`: too many new accounts from one address."""
        throttle.sign_up(address)
        return await auth.register(pool, tokens, data.name, data.password)

    @post("/v1/auth/login", status_code=200, summary="Sign in to a registered name",
          tags=["auth"], responses=answers(200, Session, SESSION,
                                           *BODY, "bad_credentials", "rate_limited",
                                           *STORE))
    async def login(self, address: str, pool: Pool, tokens: Tokens, throttle: Throttle,
                    data: Login) -> Session:
        """401 `bad_credentials` for an unknown name or a wrong password alike. 429
        `rate_limited` after too many failures for the account or from the address."""
        return await auth.login(pool, tokens, throttle, data.name, data.password,
                                address)


class TableController(Controller):
    """People's tables: open, find, join, leave, bots, rules, start, play again."""

    @post("/v1/tables", status_code=201, summary="Open a table (private ones get a room code)",
          tags=["tables"], security=BEARER, responses=answers(201, Table, TABLE,
                                                              *SIGNED_IN, *BODY,
                                                              "bad_rules", "public_rules_fixed",
                                                              "no_room_code", "in_game", *STORE))
    async def create_table(self, me: Claims, tables: Tables, data: CreateTable) -> Table:
        """`rules` is a preset name or `{"preset": NAME, **options}` (docs/rules.md); a
        public table keeps its preset as it is. The host sits at `seat` (default 0)."""
        return await tables.create(me, data.rules, data.private, data.banter, data.seat)

    @get("/v1/tables", summary="Public tables: open ones to join, playing ones to watch",
         tags=["tables"],
         responses=answers(200, TableList, {"tables": [{**TABLE, "private": False,
                                                       "code": None}]},
                             *STORE))
    async def list_tables(self, tables: Tables) -> TableList:
        """Open to anyone, signed in or not: a visitor sees what is on before signing in.
        A table with `state` "playing" has a `game_id` to watch (subscribe with
        `spectate`). The same list, kept current, comes over /v1/ws after `watch_tables`."""
        return TableList(tables=await tables.list_open())

    @get("/v1/tables/{table_id:str}", summary="One table", tags=["tables"], security=BEARER,
         responses=answers(200, Table, TABLE,
                           *SIGNED_IN, "bad_request", "table_not_found", *STORE))
    async def read_table(self, me: Claims, tables: Tables, table_id: TableId) -> Table:
        """The room code is shown to the host and the seated players only."""
        return await tables.get(me, table_id)

    @post("/v1/tables/join", status_code=200, summary="Join a private table by its room code",
          tags=["tables"], security=BEARER,
          responses=answers(200, Table, TABLE,
                            *SIGNED_IN, *BODY, "rate_limited", "table_not_found",
                            "table_started", "table_full", "seat_taken", *STARTS, *STORE))
    async def join_by_code(self, me: Claims, tables: Tables, data: JoinByCode) -> Table:
        """404 `table_not_found`: no table has that code; 409 `table_full`, `seat_taken`,
        `table_started`."""
        return await tables.join_by_code(me, data.code, data.seat)

    @post("/v1/tables/watch", status_code=200,
          summary="Find a private table's game by its room code, to watch it",
          tags=["tables"], security=BEARER,
          responses=answers(200, Table, {**TABLE, "code": None, "state": "playing",
                                         "game_id": "g-9c1d"},
                             *SIGNED_IN, *BODY, "rate_limited", "table_not_found",
                             "table_not_started", *STORE))
    async def watch_by_code(self, me: Claims, tables: Tables, data: WatchByCode) -> Table:
        """The answer carries the `game_id`: subscribe to it over /v1/ws with `spectate`
        and the same `code`. 404 `table_not_found`: no table has that code; 409
        `table_not_started`: nothing to watch yet (join the table instead)."""
        return await tables.watch_by_code(me, data.code)

    @post("/v1/tables/{table_id:str}/join", status_code=200,
          summary="Take a seat (a given one, or the first free)", tags=["tables"],
          security=BEARER, responses=answers(200, Table, TABLE,
                                             *SIGNED_IN, *BODY, "table_not_found",
                                             "room_code_required", "table_started", "table_full",
                                             "seat_taken", *STARTS, *STORE))
    async def join(self, me: Claims, tables: Tables, table_id: TableId,
                   data: JoinTable | None = None) -> Table:
        """409 `table_full`, `seat_taken` or `table_started`."""
        return await tables.join(me, table_id, data.seat if data else None)

    @post("/v1/tables/{table_id:str}/leave", status_code=200, summary="Leave one's seat",
          tags=["tables"], security=BEARER,
          responses=answers(200, Table, TABLE,
                            *SIGNED_IN, "bad_request", "table_not_found", "not_seated",
                            *GAME_REFUSALS, *STARTS, *STORE))
    async def leave(self, me: Claims, tables: Tables, table_id: TableId) -> Table:
        """Frees the seat before the game; during it, tells the game the seat left (the
        rules decide: a bot plays it, or the pair forfeits). 409 `not_seated`."""
        return await tables.leave(me, table_id)

    @post("/v1/tables/{table_id:str}/bots", status_code=200,
          summary="Host: a bot (and its level) on one seat or on every free seat",
          tags=["tables"], security=BEARER,
          responses=answers(200, Table, TABLE,
                            *SIGNED_IN, *BODY, "table_not_found", "not_host",
                            "table_started", "seat_taken", *STORE))
    async def bots(self, me: Claims, tables: Tables, table_id: TableId, data: SetBots) -> Table:
        """A bot at seat S is named "Bot S+1"; clients show it as "Bot 2 (basic)"."""
        return await tables.set_bots(me, table_id, data.seat, data.level, data.remove)

    @patch("/v1/tables/{table_id:str}/rules", summary="Private table host: change rules "
           "before the first deal (body: the options to change)", tags=["tables"],
           security=BEARER, responses=answers(200, Table, TABLE,
                                              *SIGNED_IN, *BODY, "bad_rules",
                                              "table_not_found", "not_host", "table_started",
                                              "public_rules_fixed", *STORE))
    async def change_rules(self, me: Claims, tables: Tables, table_id: TableId,
                           data: dict[str, Any]) -> Table:
        """Body: e.g. `{"target": 300, "nil": false}`, the options of docs/rules.md;
        400 `bad_rules` names the option refused. 409 `public_rules_fixed`."""
        return await tables.change_rules(me, table_id, data)

    @post("/v1/tables/{table_id:str}/rules/reset", status_code=200,
          summary="Host: every rule back to the table's preset", tags=["tables"],
          security=BEARER, responses=answers(200, Table, TABLE,
                                             *SIGNED_IN, "bad_request", "table_not_found",
                                             "not_host", "table_started", *STORE))
    async def reset_rules(self, me: Claims, tables: Tables, table_id: TableId) -> Table:
        """403 `not_host` for anyone but the host."""
        return await tables.reset_rules(me, table_id)

    @patch("/v1/tables/{table_id:str}", summary="Host: table options (bot banter on or off)",
           tags=["tables"], security=BEARER,
           responses=answers(200, Table, TABLE,
                             *SIGNED_IN, *BODY, "table_not_found", "not_host", *STORE))
    async def options(self, me: Claims, tables: Tables, table_id: TableId,
                      data: SetTableOptions) -> Table:
        """Bot table talk (chat lines from bots) on or off for everyone at the table."""
        return await tables.set_banter(me, table_id, data.banter)

    @post("/v1/tables/{table_id:str}/start", status_code=200,
          summary="Host: start the game (empty seats get bots)", tags=["tables"],
          security=BEARER, responses=answers(200, Table, {**TABLE, "state": "playing",
                                                          "game_id": "g-9c1d"},
                             *SIGNED_IN, "bad_request", "table_not_found", "not_host",
                             "table_started", *STARTS, *STORE))
    async def start(self, me: Claims, tables: Tables, table_id: TableId) -> Table:
        """The answer carries the `game_id`; subscribe to it over /v1/ws. 503
        `game_unavailable` when no game worker answered (retry)."""
        return await tables.start(me, table_id)

    @post("/v1/tables/{table_id:str}/again", status_code=200,
          summary="Play again at this table, same seats (ask, or agree)", tags=["tables"],
          security=BEARER, responses=answers(200, Table, {
              **TABLE, "play_again": [True, True, False, True]},
                             *SIGNED_IN, "bad_request", "table_not_found", "not_seated",
                             "match_table", "game_running", "no_game_yet", *STARTS, *STORE))
    async def again(self, me: Claims, tables: Tables, table_id: TableId) -> Table:
        """After the table's game ended, anyone seated asks for another game at the same
        table: the table opens again and the other people seated get a
        `play_again_asked` note; each agrees with this same call, or leaves (the seat
        goes to a bot or is freed, as the rules' `abandon` says). `play_again` says per
        seat who will play. Once every seat agreed the game starts (the answer then has
        the new `game_id`); the host may start sooner (`/start`), and seats whose people
        did not agree then go to bots. 409 `not_seated`, `game_running`, `no_game_yet`."""
        return await tables.play_again(me, table_id)


class PlayerController(Controller):
    """The caller's way back in, and a game's public summary."""

    @get("/v1/me", summary="The caller's running games and tables (the way back in)",
         tags=["players"], security=BEARER, responses=answers(200, Me, {
             "player_id": "p-7f3a", "name": "Ada",
             "games": [{"game_id": "g-9c1d", "table_id": "t-2b", "seat": 0}],
             "tables": [{**TABLE, "state": "playing", "game_id": "g-9c1d"}],
             "offers": [], "role": "player"}, *SIGNED_IN, *STORE))
    async def whoami(self, me: Claims, pool: Pool, tables: Tables) -> Me:
        """After a reload or on a second device: the games the caller sits in that have
        not ended (newest first; subscribe to one over /v1/ws to play on), and the open
        or playing tables where the caller sits or hosts. `role`: the account's role as
        it stands now (`player`, `organizer` or `operator`), so a client offers only what
        the account may do."""
        found = await tables.whereabouts(me)
        role = None if me.guest else await accounts.account_role(pool, me.player_id)
        return msgspec.structs.replace(found, role=role or auth.PLAYER)

    @get("/v1/games/live", summary="Games being played now that anyone may watch, "
         "best-rated first", tags=["games"], security=BEARER, guards=[signed_in],
         responses=answers(200, LiveGames, LIVE, *SIGNED_IN, "bad_request", *STORE))
    async def live(self, me: Claims, live: Live,
                   limit: Annotated[int, Parameter(ge=1, le=100)] = 20) -> LiveGames:
        """For anyone signed in (401 without a good token): public tables' games and
        ranked and tournament matches (never a private table's), ordered by the mean
        rating of their registered players (`rating`; games with none last), then
        newest first. `delayed`: a watcher sees the game
        `watch_delay_tricks` tricks behind (a ranked or tournament match's). When the
        ratings service does not answer the list still comes, `ratings_complete` false.
        A player of a duplicate tournament is not listed the other tables of a round
        they have not finished (see `deal_not_finished`)."""
        return await live.games(limit, me)

    @get("/v1/games/{game_id:str}", summary="A game's public summary", tags=["games"],
         security=BEARER, responses=answers(200, GameSummary, GAME,
                                            *SIGNED_IN, "bad_request", "game_not_found",
                                            "room_code_required", "rate_limited",
                                            "deal_not_finished", "tournaments_unavailable",
                                            "game_unavailable", *STORE))
    async def game(self, me: Claims, gateway: Gateway, game_id: GameId,
                   code: RoomCode = None) -> GameSummary:
        """What anyone at the table may know: seats, rules, phase, score. A private
        table's game answers its host, its players and those who give its room code
        (`?code=`), else 403 `room_code_required`. A ranked or tournament match's answers
        anyone, as it stood `watch_delay_tricks` tricks ago (live to its players, its
        tournament's organizer and operators); a duplicate round's game answers 403
        `deal_not_finished` to one who plays in that round and has not finished their own
        match of it."""
        return await gateway.summary(game_id, me, code)



def static_file(path: str, name: str) -> Any:
    """A route serving one file of ``static/`` (read once) at ``path``."""
    body = (STATIC / name).read_bytes()
    media = "text/html" if name.endswith(".html") else "text/javascript"

    @get(path, include_in_schema=False, sync_to_thread=False, name=f"static:{name}")
    def serve() -> Response[bytes]:
        return Response(body, media_type=f"{media}; charset=utf-8")

    return serve


__all__ = ["PlayerController", "SessionController", "TableController", "static_file"]
