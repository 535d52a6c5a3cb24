"""Every rated game's pairs scored again, off the game's path: fair play's ``GameEnded``
consumer (docs/fairplay.md).

Weighing a game's cards is the expensive part (the expert's search twice per card
decision, a second or two of CPU for a match), so it happens in the consumer's
``before`` hook, in a thread, holding no Postgres connection, from the game's stored
events asked of any game worker (``svc.game.since``). The handler, inside the
consumer's transaction, keeps the weighed game, then judges the game's six pairs
(two partnerships, four pairs of opponents) over each player's recent games and
opens or updates their cases. The consumer applies an ending once by (stream,
version), and the game row is keyed by its id, so a redelivered ending neither
weighs twice nor opens a second case; one open case per pair and relation is kept by
a unique index.
"""

from __future__ import annotations

import asyncio
import uuid
from zlib import crc32

import asyncpg
from prometheus_client import Counter, Histogram

from engine.fairplay import Game, Verdict, judge, weigh_records
from engine.records import hand_records
from schemas.bus import EventEnvelope
from schemas.events import Event, GameEnded
from schemas.gamebus import EventsReply, EventsSince
from schemas.subjects import Names
from services.platform import logs
from services.platform.busclient import BusClient
from services.platform.events import game_registry
from services.ratings.fairplay import store
from services.ratings.results import rated_players

_log = logs.get("fairplay")
WEIGH_SECONDS = Histogram("spades_fairplay_weigh_seconds", "Time to weigh one rated game's "
                          "card decisions (the expert's search with and without the "
                          "partner's hand)", buckets=(0.1, 0.25, 0.5, 1, 2, 4, 8, 16))
CASES_OPENED = Counter("spades_fairplay_cases_opened_total", "Fair-play cases opened, by "
                       "relation", ["relation"])
_PAGE = 1000  # events asked of a game worker at a time


class Scoring:
    """The consumer's parts: ``before`` weighs, ``handle`` keeps and judges."""

    def __init__(self, pool: asyncpg.Pool, client: BusClient, names: Names, deals: int,
                 per_player: int, league: int, timeout: float = 5.0) -> None:
        self.pool, self.client, self.names, self.timeout = pool, client, names, timeout
        self.deals, self.per_player, self.league = deals, per_player, league
        self.weighed: dict[str, Game] = {}  # games weighed ahead, until handled
        self._events = game_registry()

    def _rated(self, env: EventEnvelope) -> tuple[str, str, str, str] | None:
        event = self._events.decode(env.type, env.schema_version, env.body)
        return rated_players(event) if isinstance(event, GameEnded) else None

    async def before(self, envs: list[EventEnvelope]) -> None:
        """Weigh the fetch's rated games not kept yet (an ending delivered again is
        neither weighed again nor held: only this fetch's games stay in hand)."""
        rated = [env for env in envs if self._rated(env) is not None]
        kept = await store.kept(self.pool, [env.stream for env in rated])
        self.weighed = {g: w for g, w in self.weighed.items()
                        if g in {env.stream for env in rated}}
        for env in rated:
            if env.stream not in self.weighed and env.stream not in kept:
                self.weighed[env.stream] = await self.weigh(env)

    async def weigh(self, env: EventEnvelope) -> Game:
        """The rated game ``env`` ended, weighed from its stored events."""
        envs: list[EventEnvelope] = []
        while True:
            reply = await self.client.request(
                self.names.game_events_since,
                EventsSince(game_id=env.stream, version=envs[-1].version if envs else 0,
                            limit=_PAGE), EventsReply, timeout=self.timeout)
            envs += reply.events
            if len(reply.events) < _PAGE:
                break
        events = [self._events.decode(e.type, e.schema_version, e.body) for e in envs]
        stored = [e for e in events if isinstance(e, Event)]
        players = self._rated(env)
        assert players is not None
        records = list(hand_records(stored, env.stream))
        loop = asyncio.get_running_loop()
        started = loop.time()
        game = await asyncio.to_thread(weigh_records, env.stream, players, env.occurred_at_ms,
                                       records, crc32(env.stream.encode()), self.deals)
        WEIGH_SECONDS.observe(loop.time() - started)
        return game

    async def handle(self, conn: asyncpg.Connection, env: EventEnvelope) -> None:
        if self._rated(env) is None:
            return
        game = self.weighed.pop(env.stream, None) or await self.weigh(env)
        if not await store.add_game(conn, game):
            return
        await judge_pairs(conn, game, self.per_player, self.league)


def pairs_of(players: tuple[str, str, str, str]) -> list[tuple[tuple[str, str], str]]:
    """The game's pairs: its two partnerships and four pairs of opponents, each sorted."""
    out = []
    for i in range(4):
        for j in range(i + 1, 4):
            if players[i] != players[j]:
                pair = (min(players[i], players[j]), max(players[i], players[j]))
                out.append((pair, "partners" if (i ^ j) == 2 else "opponents"))
    return out


def in_relation(g: Game, pair: tuple[str, str], relation: str) -> bool:
    """Whether ``pair`` sat in ``g`` as ``relation`` (partners: one team)."""
    seats = [i for i, p in enumerate(g.players) if p in pair]
    if len({g.players[i] for i in seats}) < 2:
        return False
    same = any((i ^ j) == 2 for i in seats for j in seats if g.players[i] != g.players[j])
    return same == (relation == "partners")


async def verdict(conn: asyncpg.Connection, window: list[Game], judged: list[Verdict],
                  pair: tuple[str, str], relation: str) -> tuple[Verdict | None, list[Game]]:
    """The pair's verdict over ``window`` (``judged``: every verdict on it), less its
    games up to its last decided case (already judged by a person), and the games it
    sat in that relation."""
    cutoff = await store.decided_since(conn, pair, relation)
    games = [g for g in window
             if cutoff is None or g.ended_at > cutoff or not in_relation(g, pair, relation)]
    found = [v for v in (judged if cutoff is None else judge(games))
             if v.players == pair and v.relation == relation]
    return (found[0] if found else None), [g for g in games if in_relation(g, pair, relation)]


async def judge_pairs(conn: asyncpg.Connection, game: Game, per_player: int,
                      league: int) -> None:
    """Judge each pair of ``game`` over its players' recent games: open a case for a pair
    over its threshold, and keep an open case's score current."""
    window = await store.recent_games(conn, sorted(set(game.players)), per_player, league)
    judged = judge(window)
    for pair, relation in pairs_of(game.players):
        v, theirs = await verdict(conn, window, judged, pair, relation)
        if v is None:
            continue
        ids = [g.game_id for g in theirs]
        case = await store.open_case(conn, pair, relation)
        if case is None and v.flagged:
            case_id = f"c-{uuid.uuid4().hex[:12]}"
            await store.new_case(conn, case_id, pair, relation, v.score, v.hands, v.why, ids)
            await store.event(conn, case_id, "opened", {"score": round(v.score, 2),
                                                        "game_id": game.game_id})
            CASES_OPENED.labels(relation).inc()
            _log.warning("fairplay_case_opened", case=case_id, players=list(pair),
                         relation=relation, score=round(v.score, 2), hands=v.hands)
        elif case is not None:
            await store.rescore(conn, case["case_id"], v.score, v.hands, v.why, ids)
            await store.event(conn, case["case_id"], "scored", {"score": round(v.score, 2),
                                                                "game_id": game.game_id})
