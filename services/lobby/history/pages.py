"""A page of a player's games: the projection's rows, seen from the player's seat, with
the rating each rated game moved and the tournament round each tournament game was.

The ratings and tournament services own those facts; a page asks each once (the
ratings service for the page's rated games, the tournament service once per
tournament on the page). A service that does not answer leaves its part out of the
page rather than failing it: the list of games is the player's own record.
"""

from __future__ import annotations

from typing import Any

import msgspec

from schemas import history as h
from schemas import ratings as api
from schemas.errors.codes import GAME_UNAVAILABLE
from schemas.rules import Rules
from schemas.seats import opponents_of, partner_of, team_of
from schemas.views import HandSheet
from services.lobby.base.errors import LobbyError
from services.lobby.clients.gameworkers import GameClient, GameUnavailable
from services.lobby.clients.ratings import RatingsBus
from services.lobby.history import store
from services.lobby.tournaments.relay import Tournaments


def _ms(value: Any) -> int:
    return int(value.timestamp() * 1000)


def _result(row: dict[str, Any], seat: int) -> str:
    if seat in row["abandoned"]:
        return "left"
    if row["winner"] is None:
        return "draw"
    return "win" if row["winner"] == team_of(seat) else "loss"


class History:
    def __init__(self, pool: Any, ratings: RatingsBus, tournaments: Tournaments,
                 games: GameClient) -> None:
        self.pool, self.ratings, self.tournaments = pool, ratings, tournaments
        self.games = games

    async def replayable(self, player: str, game_id: str) -> None:
        """A finished game ``player`` sat in, or 404 ``game_not_found`` / 403
        ``not_your_game``. A game the projection has not recorded yet is looked up in
        its own store: a player told ``GameEnded`` replays it at once, and a stranger
        is told it is not theirs, whichever lobby copy answers and however far behind
        its projection is."""
        players = await store.players_of(self.pool, game_id)
        if players is None:
            try:
                end = await self.games.ending(game_id)
            except GameUnavailable:
                raise LobbyError(GAME_UNAVAILABLE, "no game worker answered") from None
            players = None if end is None else list(end[1].players)
        if players is None:
            raise LobbyError("game_not_found", f"no finished game {game_id} (a game is "
                                               "replayed once it has ended)")
        if player not in players:
            raise LobbyError("not_your_game", f"you did not play in game {game_id}")

    async def page(self, player: str, before: int | None, limit: int,
                   asker: str) -> h.PlayerGames:
        """Anyone signed in sees a player's games; a private table's only its players."""
        rows = await store.page(self.pool, player, before, limit, asker)
        changes, complete = await self._rating_changes(
            player, [r["game_id"] for r in rows if r["rated"]])
        rounds = await self.tournaments.rounds_of(
            [r["match_id"] for r in rows if r["origin"] == "tournament"])
        games = [self._game(r, player, changes.get(r["game_id"]), rounds) for r in rows]
        more = len(rows) == limit
        return h.PlayerGames(games=games, next=rows[-1]["id"] if more and rows else None,
                             ratings_complete=complete)

    async def _rating_changes(self, player: str,
                              games: list[str]) -> tuple[dict[str, h.RatingChange], bool]:
        if not games:
            return {}, True
        try:
            reply = await self.ratings.history(api.HistoryRequest(
                player_id=player, limit=len(games), games=games))
        except LobbyError:  # ratings_unavailable: the page goes out without them
            return {}, False
        return {e.game_id: h.RatingChange(before=e.rating_before, after=e.rating_after,
                                          delta=e.delta) for e in reply.entries}, True

    def _game(self, row: dict[str, Any], player: str, rating: h.RatingChange | None,
              rounds: dict[str, h.TournamentRound]) -> h.PlayedGame:
        people = [h.Person(player_id=p, name=n) for p, n in zip(row["players"], row["names"],
                                                                 strict=True)]
        seat = list(row["players"]).index(player)
        team = team_of(seat)
        return h.PlayedGame(
            game_id=row["game_id"], table_id=row["table_id"], origin=row["origin"],
            started_at=_ms(row["started_at"]), ended_at=_ms(row["ended_at"]),
            rules=msgspec.json.decode(row["rules"], type=Rules), players=people, seat=seat,
            team=team, partner=people[partner_of(seat)],
            opponents=[people[s] for s in opponents_of(seat)],
            result=_result(row, seat), reason=row["reason"],  # type: ignore[arg-type]
            scores=tuple(row["scores"]),
            hands=msgspec.json.decode(row["hands"], type=list[HandSheet]),
            rated=row["rated"], rating=rating, tournament=rounds.get(row["match_id"]))


__all__ = ["History"]
