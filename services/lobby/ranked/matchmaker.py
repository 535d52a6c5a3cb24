"""The ranked matchmaker: one leader among the lobby copies, fenced by its lease.

Every ``queue_cycle_seconds`` each copy tries to claim (or renew) the lease
``matchmaker``; the one holding it runs a cycle, the others wait for the next.
A cycle, every write fenced by the lease's epoch (a leader that was paused and
lost the lease commits nothing):

1. expire the tickets of gateways that stopped beating, and unanswered invites, and
   take out the tickets of players a fair-play case bars from ranked now (``bars``);
2. settle the offers whose ready check ended, asking ``Matches.open`` again with
   the same request (the match's record, from any copy): a started game takes its
   tickets out; a failed check puts back the tickets whose players all accepted,
   keeping their wait, and cools the absent down;
3. read the waiting tickets, call the pure matcher (``matching``), and record
   its offers in one transaction that drops any offer whose ticket changed since
   it was read (a cancel racing a match: in the match or out of the queue);
4. open each offer as a rated match with a ready check, ``OPENS_AT_ONCE`` at a
   time; the players accept it with ``queue_accept`` (``Matches.ready``).

Offers are opened, and older ones looked at, several at once: one at a time, a
busy hour's queue of 5,000 people was offered about a match a second while each
open waited on its own round trips (docs/scaling.md, "Ranked at a busy hour").
No player is in two of them: the matcher puts a ticket in one offer at most, and
``commit_offers`` keeps an offer only while all its tickets are still waiting.

Between cycles the leader also listens to the queue's match outcomes
(``lobby.match.queue.*``): an offer whose ready check just ended is settled at
once, so the players who accepted are back in the queue without waiting for
the next cycle. The cycle still settles whatever an outcome missed. A player who
leaves the queue during a ready check settles the offer their decline ended
themselves, on any copy and without the lease (``Queue.settle_unstarted``: that end
is final, and the offer's row lock lets one settle it), so their answer already
says what the decline did.

A crash anywhere is finished by the next cycle of whichever copy leads then:
offers are re-asked until they end, and ``Matches.open`` is idempotent.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import msgspec
from prometheus_client import Gauge, Histogram

from schemas.bus import EventEnvelope
from schemas.fairplay import BarsBegan
from schemas.matches import MatchOpened, MatchSeat, OpenMatch, game_of
from schemas.notes import MatchFound, QueuedPlayer
from schemas.seats import seated, teams_of
from services.lobby.accounts import store as accountstore
from services.lobby.base import store as basestore
from services.lobby.base.errors import LobbyError
from services.lobby.base.rulesets import rules_of
from services.lobby.base.settings import LobbySettings
from services.lobby.matches import store as matchstore
from services.lobby.matches.opening import Matches
from services.lobby.ranked import store as qs
from services.lobby.ranked import traces
from services.lobby.ranked.bars import Bars
from services.lobby.ranked.matching import Match, Ticket, match
from services.lobby.ranked.queue import Queue, blamed
from services.platform import logs, tracing
from services.platform.lease import FencedError, LeaseHeld, Leases
from services.platform.periodic import Periodic

LEASE = "matchmaker"
PENDING = "pending"  # an offer whose match could not be asked for this cycle
OPENS_AT_ONCE = 32  # offers opened (or looked at) at once, each with its own connection
_log = logs.get("matchmaker")

WAITING = Gauge("spades_queue_waiting_players", "Players waiting in the ranked queue",
                ["kind"])
CYCLE = Histogram("spades_queue_cycle_seconds", "Time of one matchmaker cycle",
                  buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5))
WAIT = Histogram("spades_queue_wait_seconds", "How long a player waited for a match offer",
                 buckets=(1, 5, 10, 15, 30, 45, 60, 90, 120, 180, 300, 600))
GAP = Histogram("spades_queue_team_gap", "Rating gap between the team means of a match offered",
                buckets=(0, 10, 25, 50, 75, 100, 150, 200, 300, 400))


def seats_of(m: Match) -> tuple[str, str, str, str]:
    """Seats 0 and 2 for the first team, 1 and 3 for the second."""
    return seated(*m.teams)


def ranked_rules(setting: str) -> str | dict[str, Any]:
    """The ``ranked_rules`` setting as ``OpenMatch.rules``, checked (``bad_rules``)."""
    rules: str | dict[str, Any] = json.loads(setting) if setting.lstrip().startswith("{") \
        else setting
    rules_of(rules)
    return rules


def offer_of(m: Match, tickets: dict[str, qs.TicketRow], now: float,
             rules: str | dict[str, Any], ready_seconds: int) -> qs.Offer:
    """The offer of a match the matcher found: its request (a rated match with a ready
    check of ``ready_seconds``), seats, ratings and how long each player waited."""
    seats = seats_of(m)
    rating = {p: r for t in m.tickets for p, r in zip(tickets[t].players,
                                                      tickets[t].ratings, strict=True)}
    since = {p: tickets[t].since_ms for t in m.tickets for p in tickets[t].players}
    match_id = uuid.uuid4().hex
    req = OpenMatch(match_id=match_id, seats=tuple(  # type: ignore[arg-type]
        MatchSeat(player_id=p) for p in seats), rules=rules, rated=True, origin="queue",
        origin_id="ranked", ready_seconds=ready_seconds)
    return qs.Offer(
        match_id=match_id, tickets=tuple((t, tickets[t].version) for t in m.tickets),
        players=seats, ratings=tuple(rating[p] for p in seats),  # type: ignore[arg-type]
        gap=m.gap, waited_ms=tuple(max(0, int(now * 1000) - since[p])  # type: ignore[arg-type]
                                   for p in seats),
        request=msgspec.msgpack.encode(req))


Opened = tuple[str, set[str], str]


async def formed(pool: basestore.Pool, req: OpenMatch, offer: qs.Offer,
                 open_: Callable[[OpenMatch, qs.Offer], Awaitable[Opened]]) -> Opened:
    """``open_`` a new offer's match inside its ``match formed`` span: the child of one
    ticket's ``queue_join``, linked to the others' (each kept on its ticket), so the
    offer, its ready check and the match's record (which keeps this span's trace for
    the game's start) are in the trace of every player's join."""
    if not tracing.on():
        return await open_(req, offer)
    joins = [tracing.of(t) for t in await traces.of_tickets(pool, [t for t, _ in offer.tickets])]
    kept = [j for j in joins if j is not None]
    with tracing.span("match formed", tracing.SpanKind.INTERNAL, next(iter(kept), None),
                      links=kept[1:],
                      attrs={"match.id": req.match_id, "game.id": game_of(req.match_id),
                             "players": list(offer.players), "gap": offer.gap}):
        _log.info("queue_match_formed", match_id=req.match_id, tickets=len(joins))
        return await open_(req, offer)


class Matchmaker(Periodic):
    def __init__(self, pool: basestore.Pool, queue: Queue, matches: Matches,
                 settings: LobbySettings, holder: str) -> None:
        super().__init__("matchmaker", settings.queue_cycle_seconds, self.cycle)
        self.pool, self.queue, self.matches, self.settings = pool, queue, matches, settings
        self.holder = holder
        self.game_rules = ranked_rules(settings.ranked_rules)
        self.leases = Leases(pool)
        self.leading = False
        self.epoch = 0
        self.bars = Bars(queue, settings.queue_bar_recheck_seconds, self.wake)
        self._listening: list[Any] = []

    async def start(self) -> None:
        broadcasts = self.queue.broadcasts
        self._listening = [
            await broadcasts.listen(broadcasts.names.lobby_matches_of("queue"),
                                    EventEnvelope, self.on_outcome),
            await broadcasts.listen(broadcasts.names.ranked_barred, BarsBegan,
                                    self.bars.on_published)]
        await super().start()

    async def stop(self) -> None:
        await super().stop()
        for listening in self._listening:
            with contextlib.suppress(Exception):
                await listening.unsubscribe()
        if self.leading:  # handed on now: another copy leads from its next cycle
            with contextlib.suppress(Exception):  # or it lapses: matchmaker_lease_seconds
                await self.leases.release(self.holder, [LEASE])
                _log.info("matchmaker_released", holder=self.holder, epoch=self.epoch)

    async def on_outcome(self, env: EventEnvelope) -> None:
        """A queue match's ready check ended: the leader settles its offer now."""
        if not self.leading or not env.stream.startswith("match-"):
            return
        row = await qs.offer(self.pool, env.stream.removeprefix("match-"))
        if row is None:
            return
        try:
            await self.settle(self.epoch, row.match_id,
                              msgspec.msgpack.decode(row.request, type=OpenMatch))
        except FencedError:
            self.leading = False
        except Exception as exc:  # the next cycle settles it
            _log.warning("queue_outcome_failed", match_id=row.match_id, error=repr(exc))

    async def cycle(self) -> int:
        """One round if this copy leads; how many offers it made."""
        try:
            lease = await self.leases.claim(LEASE, self.holder,
                                            self.settings.matchmaker_lease_seconds)
        except LeaseHeld:
            if self.leading:
                _log.info("matchmaker_lost_lease", holder=self.holder)
            self.leading = False
            return 0
        if not self.leading:
            _log.info("matchmaker_leading", holder=self.holder, epoch=lease.epoch)
            self.leading = True
        self.epoch = lease.epoch
        started = time.perf_counter()
        try:
            return await self.run(lease.epoch)
        except FencedError:
            _log.warning("matchmaker_fenced", holder=self.holder, epoch=lease.epoch)
            self.leading = False
            return 0
        finally:
            CYCLE.observe(time.perf_counter() - started)

    async def run(self, epoch: int) -> int:
        s = self.settings
        for ticket, reason in await qs.expire(self.pool, LEASE, epoch,
                                              3 * s.queue_heartbeat_seconds,
                                              s.queue_invite_seconds):
            _log.info("queue_ticket_expired", ticket_id=ticket.ticket_id, reason=reason)
            await self.queue.tell_status(ticket, "none", reason)
        await self.bars.drop((LEASE, epoch))
        await self.settle_all(epoch, [(msgspec.msgpack.decode(row.request, type=OpenMatch),
                                       None) for row in await qs.offered(self.pool)])
        waiting = await qs.waiting(self.pool, s.queue_leaver_seconds)
        WAITING.labels("solo").set(sum(1 for w in waiting if len(w.ticket.players) == 1))
        WAITING.labels("pair").set(sum(2 for w in waiting if len(w.ticket.players) == 2))
        now = time.time()
        tickets = {w.ticket.ticket_id: w.ticket for w in waiting}
        found = match([Ticket(ticket_id=w.ticket.ticket_id, players=w.ticket.players,
                              ratings=w.ticket.ratings, since=w.ticket.since_ms / 1000,
                              last_players=w.last_players, last_partner=w.last_partner,
                              leaver=w.leaver) for w in waiting], now, self.queue.rules)
        offers = [offer_of(m, tickets, now, self.game_rules, s.queue_accept_seconds)
                  for m in found]
        kept = await qs.commit_offers(self.pool, LEASE, epoch, offers) if offers else []
        for offer in kept:
            GAP.observe(offer.gap)
            for waited in offer.waited_ms:
                WAIT.observe(waited / 1000)
            _log.info("queue_match_offered", match_id=offer.match_id, gap=offer.gap,
                      players=list(offer.players), dropped=len(offers) - len(kept))
        await self.settle_all(epoch, [(msgspec.msgpack.decode(o.request, type=OpenMatch), o)
                                      for o in kept])
        return len(kept)

    async def settle_all(self, epoch: int,
                         offers: list[tuple[OpenMatch, qs.Offer | None]]) -> None:
        """``settle`` each offer, ``OPENS_AT_ONCE`` at a time. One that fails is logged
        and left to the next cycle (it must not hold up the others); a lost lease stops
        the cycle."""
        for i in range(0, len(offers), OPENS_AT_ONCE):
            batch = offers[i:i + OPENS_AT_ONCE]
            done = await asyncio.gather(*(self.settle(epoch, req.match_id, req, offer)
                                          for req, offer in batch), return_exceptions=True)
            for (req, _), outcome in zip(batch, done, strict=True):
                if isinstance(outcome, FencedError) or (
                        isinstance(outcome, BaseException) and not isinstance(outcome, Exception)):
                    raise outcome
                if isinstance(outcome, Exception):
                    _log.warning("queue_settle_failed", match_id=req.match_id,
                                 error=repr(outcome))

    async def settle(self, epoch: int, match_id: str, req: OpenMatch,
                     offer: qs.Offer | None = None) -> None:
        """Open a new offer's match, or look where an older one stands, and act on it
        once its ready check has ended."""
        if offer is not None:
            state, absent, game_id = await formed(self.pool, req, offer, self._open)
        else:
            state, absent, game_id = await self._where(req)
        if state in ("ready_check", "starting", PENDING):  # not ended yet
            return
        await self.queue.settle(match_id, state, game_id, absent, (LEASE, epoch))

    async def _open(self, req: OpenMatch,
                    offer: qs.Offer | None) -> tuple[str, set[str], str]:
        """(state, absent players, game id) once the match is asked for; PENDING when
        nothing was decided (no game worker answered: ask again next cycle)."""
        try:
            opened = await self.matches.open(req)
        except LobbyError as exc:
            if exc.status >= 500:
                _log.warning("queue_match_pending", match_id=req.match_id, code=exc.code)
                return PENDING, set(), ""
            _log.warning("queue_match_failed", match_id=req.match_id, code=exc.code)
            return "failed", set(), ""
        if offer is not None and opened.state == "ready_check":
            await self._found(offer, opened)
        return opened.state, blamed(req, opened.absent, opened.declined), opened.game_id

    async def _where(self, req: OpenMatch) -> tuple[str, set[str], str]:
        """Where an offer made in an earlier cycle stands, read from the match's record
        (asking again would offer it to its players again); a match never opened, or
        whose game is not created yet, is asked for."""
        try:
            match = await matchstore.match(self.pool, req.match_id)
        except basestore.NotFound:
            return await self._open(req, None)
        if match.state == "starting":
            return await self._open(req, None)
        return match.state, blamed(req, match.absent, match.declined), match.game_id

    async def _found(self, offer: qs.Offer, opened: MatchOpened) -> None:
        names = await accountstore.names(self.pool, list(offer.players))
        people = [QueuedPlayer(player_id=p, name=names.get(p, ""), rating=r)
                  for p, r in zip(offer.players, offer.ratings, strict=True)]
        teams = teams_of(people)
        for seat, p in enumerate(offer.players):
            await self.queue.broadcasts.note(p, MatchFound(match_id=offer.match_id,
                                                      accept_by=opened.ready_by, seat=seat,
                                                      teams=teams))

