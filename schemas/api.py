"""Bodies of the public HTTP API (the lobby)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from schemas.bounds import line, whole
from schemas.history import TournamentRound
from schemas.notes import MatchOffered
from schemas.ratings import LeaderboardRow, PlayerRating, RatedGame

PlayerName = Annotated[str, msgspec.Meta(min_length=1, max_length=32, pattern=whole(r"[\w .-]+"))]


class ApiError(msgspec.Struct, frozen=True):
    """Every error answer: a stable code to branch on and a plain message to show."""

    code: str
    message: str


class Player(msgspec.Struct, frozen=True):
    player_id: str
    name: str


class ServiceStatus(msgspec.Struct, frozen=True):
    service: str
    reachable: bool
    instance: str | None = None
    version: str | None = None


class PlatformStatus(msgspec.Struct, frozen=True):
    services: list[ServiceStatus]


# --- Sign-in -------------------------------------------------------------------------------

Password = Annotated[str, msgspec.Meta(min_length=8, max_length=128)]


class GuestSignIn(msgspec.Struct, frozen=True):
    name: PlayerName


class Register(msgspec.Struct, frozen=True):
    name: PlayerName
    password: Password


class Login(msgspec.Struct, frozen=True):
    name: PlayerName
    password: Annotated[str, msgspec.Meta(max_length=128)]


class Session(msgspec.Struct, frozen=True):
    """A signed bearer token (``Authorization: Bearer ...`` and ``/v1/ws?token=...``)."""

    token: str
    player_id: str
    name: str = ""
    expires_at: int = 0  # seconds since the epoch
    role: str = "player"  # or "operator": may use /v1/admin and the replay viewer
    guest: bool = False  # a guest account: no password, gone when its token expires


# --- Tables --------------------------------------------------------------------------------

BotLevel = Literal["beginner", "basic", "expert"]  # engine.bots.LEVELS, weakest first
RulesSpec = str | dict[str, Any]  # a preset name, or {"preset": NAME, **overrides}


class CreateTable(msgspec.Struct, frozen=True, kw_only=True):
    rules: RulesSpec = "house"
    private: bool = False
    banter: bool = True  # bots say a line now and then; the host's switch
    seat: Annotated[int, msgspec.Meta(ge=0, le=3)] | None = 0  # where the host sits; None: not


class JoinTable(msgspec.Struct, frozen=True, kw_only=True):
    seat: Annotated[int, msgspec.Meta(ge=0, le=3)] | None = None  # None: the first free seat


class JoinByCode(msgspec.Struct, frozen=True, kw_only=True):
    code: Annotated[str, line(12, 4)]
    seat: Annotated[int, msgspec.Meta(ge=0, le=3)] | None = None


class WatchByCode(msgspec.Struct, frozen=True, kw_only=True):
    code: Annotated[str, line(12, 4)]


class SetBots(msgspec.Struct, frozen=True, kw_only=True):
    """Host: put a bot on one seat (``seat``), or on every free seat (no ``seat``)."""

    seat: Annotated[int, msgspec.Meta(ge=0, le=3)] | None = None
    level: BotLevel = "basic"
    remove: bool = False  # take the bot off ``seat`` instead


class SetTableOptions(msgspec.Struct, frozen=True, kw_only=True):
    banter: bool


class SeatInfo(msgspec.Struct, frozen=True, kw_only=True):
    seat: int
    player_id: str | None = None
    name: str | None = None
    bot: BotLevel | None = None
    guest: bool = False  # a guest sits here: its name is not a registered one


class Table(msgspec.Struct, frozen=True, kw_only=True):
    table_id: str
    host: str
    private: bool
    code: str | None  # the room code, shown to a private table's host and players only
    rules: dict[str, Any]
    preset: str
    seats: list[SeatInfo]
    free_seats: list[int]
    state: Literal["open", "playing", "over"]
    game_id: str | None = None
    banter: bool = True
    # After a game, once someone asked to play again at this table: per seat, whether
    # it will play the next game (a bot always will; a person once they agreed).
    play_again: list[bool] | None = None


class TableList(msgspec.Struct, frozen=True):
    tables: list[Table]


class CurrentGame(msgspec.Struct, frozen=True, kw_only=True):
    """A game the player sits in that has not ended: subscribe to ``game_id``."""

    game_id: str
    table_id: str  # "" for a game no table opened (ranked, tournament)
    seat: int


class Me(msgspec.Struct, frozen=True, kw_only=True):
    """Where the player is: after a reload or on a second device, the way back in."""

    player_id: str
    name: str
    games: list[CurrentGame]  # newest first
    tables: list[Table]  # open or playing tables where the player sits or hosts
    offers: list[MatchOffered] = []  # matches waiting for this player to confirm
    # What the account may do as it stands now: player, organizer (may organize
    # tournaments) or operator (may organize, and reads the operators' routes).
    role: str = "player"


class GameSummary(msgspec.Struct, frozen=True, kw_only=True):
    """What anyone may know of a game: the public (spectator) view's headline."""

    game_id: str
    table_id: str
    players: list[SeatInfo]
    rules: dict[str, Any]
    state: str  # the game's phase: new, bidding, passing, play, over
    version: int
    hand_no: int
    scores: tuple[int, int]
    bags: tuple[int, int]
    winner: int | None = None
    end_reason: str = ""
    origin: str = ""  # what started it: table, queue or tournament
    tournament: TournamentRound | None = None  # which tournament, round and teams


class LivePlayer(msgspec.Struct, frozen=True, kw_only=True):
    seat: int
    player_id: str | None = None
    name: str | None = None
    bot: BotLevel | None = None
    guest: bool = False
    rating: int | None = None  # a registered person's rating; None for bots, guests, unknown


class LiveGame(msgspec.Struct, frozen=True, kw_only=True):
    """A game being played now that anyone may watch (``GET /v1/games/live``)."""

    game_id: str
    table_id: str
    origin: str  # table (a public table), queue (ranked) or tournament
    rated: bool
    players: list[LivePlayer]
    started_at: int  # ms since the epoch
    rating: int | None = None  # the mean of its players' known ratings: the list's order
    delayed: bool = False  # a watcher sees it watch_delay_tricks tricks behind
    # A tournament's game: its tournament, round and teams (home at seats 0 and 2); its
    # name and round are empty when the tournament service did not answer.
    tournament: TournamentRound | None = None


class LiveGames(msgspec.Struct, frozen=True, kw_only=True):
    games: list[LiveGame]
    ratings_complete: bool = True  # false: the ratings service did not answer


# --- Ratings and the leaderboard (from the ratings service, names from the lobby) -------------


class PlayerPage(msgspec.Struct, frozen=True, kw_only=True):
    """``ranked`` is null when the ratings service did not answer in time; its ``rank``
    is null when the leaderboard does not list the player (provisional, or no rated
    game for two weeks)."""

    player_id: str
    name: str
    ranked: PlayerRating | None = None


class LeaderboardEntry(LeaderboardRow, frozen=True, kw_only=True):
    name: str


class Leaderboard(msgspec.Struct, frozen=True, kw_only=True):
    entries: list[LeaderboardEntry]
    offset: int  # the first entry's rank, minus one


class Named(msgspec.Struct, frozen=True):
    player_id: str
    name: str


class RatingChange(RatedGame, frozen=True, kw_only=True):
    partner: Named
    opponents: list[Named]


class RatingHistory(msgspec.Struct, frozen=True, kw_only=True):
    entries: list[RatingChange]
    next: int | None = None  # pass as ``before`` for the next page; null on the last
