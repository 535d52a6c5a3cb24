"""The ratings service: ratings from finished games (team Elo, behind ``RatingSystem``),
and the board and pages built on it.

It follows ``GameEnded`` events on JetStream with a durable consumer
(``results.py``), answers ``svc.ratings.*`` requests (``api.py``) and keeps the
leaderboard recomputed (``board.py``).
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from schemas import subjects
from schemas.fairplay import BarsBegan
from services.platform.consumer import Consumer
from services.platform.runtime import Runtime
from services.platform.settings import Settings
from services.ratings import results
from services.ratings.api import Ratings
from services.ratings.board import BoardRefresher
from services.ratings.elo import Elo, KSchedule
from services.ratings.fairplay.cases import FairPlay
from services.ratings.fairplay.scoring import Scoring
from services.ratings.system import RatingSystem

NAME = "ratings"


class RatingsSettings(Settings, frozen=True, kw_only=True):
    http_port: Annotated[int, msgspec.Meta(
        ge=0, le=65535, description="Port of the HTTP server (health, metrics).")] = 8002
    initial_rating: Annotated[int, msgspec.Meta(
        ge=0, description="Rating of a player's first rated game.")] = 1500
    k_provisional: Annotated[int, msgspec.Meta(
        ge=1, le=100, description="Elo K of a player's first rated games.")] = 40
    k_established: Annotated[int, msgspec.Meta(
        ge=1, le=100, description="Elo K once a player is established.")] = 20
    provisional_games: Annotated[int, msgspec.Meta(
        ge=0, le=1000, description="Rated games a player stays provisional for: the K is "
                                   "k_provisional and the leaderboard marks or hides them.")] = 20
    leaderboard_active_days: Annotated[float, msgspec.Meta(
        gt=0, le=3650, description="The leaderboard lists players with a rated game this "
                                   "many days back.")] = 14.0
    leaderboard_refresh_seconds: Annotated[float, msgspec.Meta(
        ge=1, le=86400, description="How often the leaderboard (pages, ranks) is recomputed; "
                                    "ratings themselves are always live.")] = 60.0
    leaderboard_fresh_seconds: Annotated[float, msgspec.Meta(
        ge=0.5, le=86400, description="How soon after a rated game changes ratings the "
                                      "leaderboard is recomputed (at most this often while "
                                      "games keep ending).")] = 2.0

    fairplay_deals: Annotated[int, msgspec.Meta(
        ge=1, le=64, description="Fair play: sampled deals per search when a rated game's "
                                 "card decisions are weighed (more: slower and surer; "
                                 "docs/fairplay.md).")] = 12
    fairplay_recent_games: Annotated[int, msgspec.Meta(
        ge=1, le=5000, description="Fair play: each player's recent rated games a pair is "
                                   "judged over.")] = 200
    fairplay_league_games: Annotated[int, msgspec.Meta(
        ge=0, le=20000, description="Fair play: the league's recent rated games that "
                                    "opponents' losses are compared with.")] = 500
    fairplay_bar_days: Annotated[float, msgspec.Meta(
        gt=0, le=3650, description="Fair play: how long an upheld case bars its accounts "
                                   "from ranked (a decision may name another length).")] = 30.0

    @property
    def system(self) -> RatingSystem:
        """The rating system the settings describe: today always team Elo."""
        return Elo(self.initial_rating,
                   KSchedule(self.k_provisional, self.k_established, self.provisional_games))


async def setup(rt: Runtime) -> None:
    assert isinstance(rt.settings, RatingsSettings)
    s = rt.settings
    spec = rt.consumer(subjects.RATINGS_RESULTS, rt.names.game_events_of_type(subjects.GAME_ENDED))
    system = s.system
    consumer = Consumer(rt.client, rt.pool, spec, results.handler(system),
                        after_commit=results.notifier(rt.pool, rt.client, rt.names),
                        batch_handler=results.batch_handler(system),
                        span=("rating computed", "game.id"))
    await consumer.start()
    rt.workers.append(consumer)
    ratings = Ratings(rt.pool, system, s.leaderboard_active_days,
                      s.leaderboard_refresh_seconds, s.leaderboard_fresh_seconds)
    refresher = BoardRefresher(ratings)
    await refresher.start()
    rt.workers.append(refresher)
    rt.endpoints.extend(ratings.endpoints())
    await _fairplay(rt, s, system)


async def _fairplay(rt: Runtime, s: RatingsSettings, system: RatingSystem) -> None:
    """Fair play: its own consumer of the rated games' endings (weighing a game takes a
    second or two, so the ratings never wait for it), and the review queue's endpoints."""
    scoring = Scoring(rt.pool, rt.client, rt.names, s.fairplay_deals, s.fairplay_recent_games,
                      s.fairplay_league_games)
    spec = rt.consumer(subjects.RATINGS_FAIRPLAY,
                       rt.names.game_events_of_type(subjects.GAME_ENDED))
    consumer = Consumer(rt.client, rt.pool, spec, scoring.handle, batch=1,
                        before=scoring.before)
    await consumer.start()
    rt.workers.append(consumer)

    async def barred_now(players: list[str]) -> None:
        await rt.client.publish(rt.names.ranked_barred, BarsBegan(players))

    rt.endpoints.extend(FairPlay(rt.pool, system, s.fairplay_bar_days, s.fairplay_recent_games,
                                 s.fairplay_league_games, barred_now=barred_now).endpoints())
