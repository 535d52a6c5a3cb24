"""The review queue: cases listed and shown, decided, reported; who is barred.

A decision is an event on the case. ``upheld`` voids the case's games (the ratings
are rebuilt without them, ``services/ratings/rebuild.py``, in the same transaction
as the decision) and bars the case's accounts from ranked for a period; ``cleared``
only closes the case, and the pair's games up to then are not held against it again.
Players' reports put a game's four players in the queue as one case.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import asyncpg

from engine.fairplay import Game, judge
from schemas import fairplay as api
from services.platform import logs
from services.platform.bus import Endpoint
from services.platform.busclient import Refused
from services.ratings.fairplay import store
from services.ratings.rebuild import rebuild_without
from services.ratings.system import RatingSystem

_log = logs.get("fairplay")
_TELLING = 20  # decisions shown on a case


def _ms(at: dt.datetime | None) -> int | None:
    return None if at is None else int(at.timestamp() * 1000)


def summary(r: asyncpg.Record) -> api.CaseSummary:
    return api.CaseSummary(
        case_id=r["case_id"], players=list(r["players"]), relation=r["relation"],
        status=r["status"], score=round(r["score"], 2), hands=r["hands"], why=r["why"],
        games=len(r["games"]), opened_at_ms=_ms(r["opened_at"]) or 0,
        decided_at_ms=_ms(r["decided_at"]))


def telling(games: list[Game], players: list[str]) -> list[api.Telling]:
    """The case's players' decisions that told, those that followed the real hand first,
    newest first within each."""
    out = [api.Telling(game_id=g.game_id, hand=c.hand, seat=c.seat,
                       player_id=g.players[c.seat], card=c.card,
                       followed="real" if c.told > 0 else "plausible")
           for g in reversed(games) for c in g.cards
           if c.told and g.players[c.seat] in players and g.players[c.seat ^ 2] in players]
    return sorted(out, key=lambda t: t.followed != "real")[:_TELLING]


@dataclass(frozen=True)
class FairPlay:
    pool: asyncpg.Pool
    system: RatingSystem  # what the ratings are rebuilt with when a case is upheld
    bar_days: float = 30.0  # how long an upheld case bars its accounts from ranked
    per_player: int = 200  # recent games of each player a score reads
    league: int = 500  # the league's recent games opponents' losses are compared with
    now: Callable[[], dt.datetime] = lambda: dt.datetime.now(dt.UTC)
    # Told the players an upheld case barred, once committed (the service publishes
    # ``BarsBegan``; the command line has no bus, and its bar reaches a queued ticket at
    # the matchmaker's next recheck).
    barred_now: Callable[[list[str]], Awaitable[None]] | None = None

    async def cases(self, req: api.ListCases) -> api.CaseList:
        return api.CaseList(cases=[summary(r) for r in
                                   await store.cases(self.pool, req.status, req.limit)])

    async def case(self, req: api.GetCase) -> api.CaseDetail:
        row = await store.case(self.pool, req.case_id)
        if row is None:
            raise Refused("case_not_found", f"no case {req.case_id}")
        return await self._detail(row)

    async def _detail(self, row: asyncpg.Record) -> api.CaseDetail:
        players = list(row["players"])
        games = await store.games(self.pool, row["games"])
        window = await store.recent_games(self.pool, players, self.per_player, self.league)
        known = {g.game_id for g in window}
        scored = window + [g for g in games if g.game_id not in known]
        scores = [api.PairScore(players=list(v.players), relation=v.relation,  # type: ignore[arg-type]
                                hands=v.hands, score=round(v.score, 2), flagged=v.flagged,
                                why=v.why)
                  for v in judge(sorted(scored, key=lambda g: (g.ended_at, g.game_id)))
                  if set(v.players) <= set(players)
                  and (row["relation"] == "reported" or v.relation == row["relation"])]
        events = [_event(body, at) for body, at in await store.events(self.pool, row["case_id"])]
        return api.CaseDetail(case=summary(row), games=[g.game_id for g in games]
                              + [g for g in row["games"] if g not in {x.game_id for x in games}],
                              telling=telling(games, players), scores=scores, events=events)

    async def decide(self, req: api.Decide) -> api.CaseDetail:
        async with self.pool.acquire() as conn, conn.transaction():
            row = await store.case(conn, req.case_id, lock=True)
            if row is None:
                raise Refused("case_not_found", f"no case {req.case_id}")
            if row["status"] != "open":
                raise Refused("case_decided",
                              f"case {req.case_id} was decided already ({row['status']})")
            body: dict[str, Any] = {"by": req.by, "decision": req.decision, "note": req.note}
            if req.decision == "upheld":
                until = self.now() + dt.timedelta(days=req.bar_days or self.bar_days)
                rated = await rebuild_without(conn, self.system, row["games"], req.case_id)
                await store.bar(conn, row["players"], until, req.case_id)
                body.update(barred_until_ms=_ms(until), voided_games=list(row["games"]))
                _log.warning("fairplay_upheld", case=req.case_id, players=list(row["players"]),
                             voided=len(row["games"]), rerated=rated, until=until.isoformat())
            else:
                _log.info("fairplay_cleared", case=req.case_id, players=list(row["players"]))
            await store.decide(conn, req.case_id, req.decision)
            await store.event(conn, req.case_id, "decided", body)
        if req.decision == "upheld" and self.barred_now is not None:
            try:
                await self.barred_now(list(row["players"]))
            except Exception as exc:  # the matchmaker's recheck finds the bar anyway
                _log.warning("fairplay_bar_not_told", case=req.case_id, error=repr(exc))
        row = await store.case(self.pool, req.case_id)
        assert row is not None
        return await self._detail(row)

    async def report(self, req: api.Report) -> api.Reported:
        """A player's report of a game: its players join one open ``reported`` case (a
        report repeated by the same player is taken once)."""
        players = sorted(set(req.players))
        async with self.pool.acquire() as conn, conn.transaction():
            first = await store.report(conn, req.game_id, req.reporter, req.reason)
            case = await store.open_case(conn, players, "reported")
            opened = case is None
            case_id = f"c-{uuid.uuid4().hex[:12]}" if case is None else case["case_id"]
            if case is None:
                await store.new_case(conn, case_id, players, "reported", 0.0, 0,
                                     "reported by a player", [req.game_id])
                await store.event(conn, case_id, "opened", {"game_id": req.game_id})
            else:
                await store.add_games(conn, case_id, [req.game_id])
            if first:
                await store.event(conn, case_id, "reported", {
                    "by": req.reporter, "game_id": req.game_id, "note": req.reason})
        _log.info("fairplay_reported", case=case_id, game=req.game_id, reporter=req.reporter)
        return api.Reported(case_id=case_id, opened=opened)

    async def barred(self, req: api.BarredRequest) -> api.BarredReply:
        return api.BarredReply([api.Bar(player_id=r["player_id"], until_ms=_ms(r["until"]) or 0,
                                        case_id=r["case_id"])
                                for r in await store.bars(self.pool, req.players)])

    def endpoints(self) -> list[Endpoint]:
        return [Endpoint(api.CASES, api.ListCases, self.cases),
                Endpoint(api.CASE, api.GetCase, self.case),
                Endpoint(api.DECIDE, api.Decide, self.decide, set()),
                Endpoint(api.REPORT, api.Report, self.report),
                Endpoint(api.BARRED, api.BarredRequest, self.barred)]


def _event(body: dict[str, Any], at: dt.datetime) -> api.CaseEvent:
    return api.CaseEvent(type=body["type"], at_ms=_ms(at) or 0, by=body.get("by", ""),
                         score=body.get("score"), game_id=body.get("game_id"),
                         decision=body.get("decision"), note=body.get("note", ""),
                         barred_until_ms=body.get("barred_until_ms"),
                         voided_games=body.get("voided_games", []))
