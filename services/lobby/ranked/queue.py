"""The ranked queue as players meet it: join (alone or as a pair), leave, accept, look.

A ticket belongs to the socket that joined: when that socket closes the ticket
goes, and every gateway stamps its sockets' tickets now and then so that the
tickets of a gateway that died expire too (``ranked.store.expire``, run by the
matchmaker). A pair queues when both players name each other within
``queue_invite_seconds``. What a player learns (``queue_status``, ``queue_invite``,
``match_found``) goes out as notes on ``player.note.<id>``, so it reaches all of
that player's sockets on whatever gateway. Matching itself is ``matchmaker``'s.
"""

from __future__ import annotations

import statistics
import uuid
from typing import Any

import msgspec

from schemas.errors.codes import MATCH_CLOSED, MATCH_NOT_FOUND
from schemas.matches import MatchOpened, OpenMatch
from schemas.notes import QueueInvite, QueueStatus
from schemas.queue import Band, QueueState, QueueStats
from services.lobby.accounts import store as accountstore
from services.lobby.base import store as basestore
from services.lobby.base.clock import now_ms
from services.lobby.base.errors import LobbyError
from services.lobby.base.settings import LobbySettings
from services.lobby.clients.broadcasts import Broadcasts
from services.lobby.clients.gameworkers import GameClient
from services.lobby.clients.ratings import RatingsBus
from services.lobby.matches import store as matchstore
from services.lobby.matches.opening import Matches
from services.lobby.ranked import store as qs
from services.lobby.ranked import traces
from services.lobby.ranked.eligibility import Eligibility, FinishedGames
from services.lobby.ranked.matching import MatchRules
from services.platform import logs, tracing
from services.platform.periodic import Periodic

_log = logs.get("queue")
BAND = 100


def window_of(rules: MatchRules, since_ms: int, now_ms: int) -> int | None:
    """The rating distance a ticket waiting since ``since_ms`` accepts (None: anyone)."""
    w = rules.window_after((now_ms - since_ms) / 1000)
    return None if w == float("inf") else int(w)


def percentile(sorted_values: list[int], share: float) -> int:
    if not sorted_values:
        return 0
    return sorted_values[min(len(sorted_values) - 1, int(share * len(sorted_values)))]


class Telling:
    """What players learn of their tickets: notes on ``player.note.<id>``."""

    def __init__(self, broadcasts: Broadcasts, settings: LobbySettings) -> None:
        self.broadcasts, self.settings = broadcasts, settings
        self.rules = MatchRules(cycle=settings.queue_cycle_seconds)

    async def tell(self, players: tuple[str, ...] | list[str], note: Any) -> None:
        for p in players:
            await self.broadcasts.note(p, note)

    async def tell_status(self, ticket: qs.TicketRow, state: str = "", reason: str = "",
                          cooldowns: dict[str, int] | None = None) -> None:
        """Each player of ``ticket`` learns where the ticket stands now (``state`` when
        given: "none" once it left the queue)."""
        state = state or ticket.state
        for p in ticket.players:
            partner = next((q for q in ticket.players if q != p), ticket.partner)
            if state == "none":
                note = QueueStatus(state="none", partner=partner, reason=reason,
                                   cooldown_until=(cooldowns or {}).get(p, 0))
            else:
                note = QueueStatus(
                    state=state, partner=partner,  # type: ignore[arg-type]
                    since=ticket.since_ms, window=window_of(self.rules, ticket.since_ms,
                                                            now_ms()),
                    invite_until=ticket.since_ms + int(self.settings.queue_invite_seconds * 1000)
                    if state == "inviting" else 0)
            await self.broadcasts.note(p, note)


class Queue(Telling):
    def __init__(self, pool: basestore.Pool, games: GameClient, broadcasts: Broadcasts,
                 matches: Matches, ratings: RatingsBus, settings: LobbySettings,
                 gateway: str, finished_games: FinishedGames) -> None:
        super().__init__(broadcasts, settings)
        self.pool, self.games, self.matches, self.ratings = pool, games, matches, ratings
        self.gateway = gateway
        self.eligibility = Eligibility(pool, games, settings, ratings, finished_games)
        self.sockets: set[str] = set()  # this gateway's sockets that joined the queue
        self.heartbeat = Periodic("queue_heartbeat", settings.queue_heartbeat_seconds,
                                  lambda: qs.heartbeat(pool, gateway, list(self.sockets)))

    # --- joining -----------------------------------------------------------------------------

    async def join(self, player: str, guest: bool, socket: str,
                   partner: str | None) -> qs.TicketRow:
        if guest:
            raise LobbyError("registered_only", "ranked games are for registered "
                                                "accounts; sign up to queue")
        if await qs.ticket_of(self.pool, player) is not None:
            raise LobbyError("already_queued", "you are in the queue already")
        await self.eligibility.check(player)
        if partner is not None:
            await self.eligibility.partner_free(player, partner)
        asked = [player] if partner is None else [player, partner]
        rated = await self.ratings.ratings(asked)
        # Stamped from now on: should the socket close during the join, its close finds
        # it here and drops the ticket (or the ticket, no longer stamped, expires).
        self.sockets.add(socket)
        try:
            ticket = await qs.join(self.pool, uuid.uuid4().hex, player, rated[0].rating,
                                   self.gateway, socket, partner,
                                   rated[1].rating if partner else 0,
                                   self.settings.queue_invite_seconds)
        except qs.AlreadyQueued:
            self.sockets.discard(socket)
            raise LobbyError("already_queued", "you are in the queue already") from None
        except BaseException:
            self.sockets.discard(socket)
            raise
        _log.info("queue_joined", player_id=player, ticket_id=ticket.ticket_id,
                  state=ticket.state, partner=partner)
        if tracing.on():
            await traces.keep(self.pool, ticket.ticket_id, tracing.traceparent())
        await self.tell_status(ticket)
        if ticket.state == "inviting" and partner is not None:
            names = await accountstore.names(self.pool, [player])
            await self.broadcasts.note(partner, QueueInvite(
                player_id=player, name=names.get(player, ""),
                expires_at=ticket.since_ms + int(self.settings.queue_invite_seconds * 1000)))
        return ticket

    # --- leaving -------------------------------------------------------------------------------

    async def leave(self, player: str) -> None:
        """Out of the queue; during a ready check this declines the match, and the
        offer is settled before this returns (the others back in the queue, the
        decliner out and cooled down), so what the player reads next is the state the
        decline made, not the one before it."""
        ticket = await qs.leave(self.pool, player)
        if ticket is None:
            raise LobbyError("not_queued", "you are not in the queue")
        if ticket.state == "matched" and ticket.match_id:
            _log.info("queue_left_match", player_id=player, match_id=ticket.match_id)
            try:
                await self.matches.decline(ticket.match_id, player)
            except LobbyError as exc:
                # Closed: it ended meanwhile. Not found: the offer's match is not open yet
                # (no game worker answered); leaving the ticket is enough, the leader then
                # finds a player missing.
                if exc.code not in (MATCH_CLOSED, MATCH_NOT_FOUND):
                    raise
            await self.settle_unstarted(ticket.match_id)
            return
        _log.info("queue_left", player_id=player, ticket_id=ticket.ticket_id)
        await self.tell_status(ticket, "none", "left")

    # --- an offer's end ---------------------------------------------------------------------

    async def settle(self, match_id: str, state: str, game_id: str, absent: set[str],
                     fence: tuple[str, int] | None) -> None:
        """Apply how an offer's match ended (``qs.settle``; ``fence``: the matchmaker's
        lease) and tell its players; nothing when it was applied already."""
        s = self.settings
        done = await qs.settle(self.pool, fence, match_id, state, game_id, absent,
                               s.queue_cooldown_seconds, s.queue_cooldown_max_seconds)
        if done is None:
            return
        _log.info("queue_match_settled", match_id=match_id, state=state,
                  requeued=len(done.requeued), absent=sorted(absent))
        for ticket in done.requeued:
            await self.tell_status(ticket)
        cooldowns = dict(done.penalised)
        reason = "started" if state == "started" else "declined"
        for p in sorted(set(done.dropped)):
            await self.broadcasts.note(p, _gone(p, reason, cooldowns, absent))

    async def settle_unstarted(self, match_id: str) -> None:
        """Settle an offer whose match ended unstarted (``not_ready``, ``failed``: final).
        A started one is the matchmaker's, which tells its players they left the queue
        only after the match told them where they sit."""
        offer = await qs.offer(self.pool, match_id)
        if offer is None:
            return
        try:
            m = await matchstore.match(self.pool, match_id)
        except basestore.NotFound:
            return
        if m.state in ("not_ready", "failed"):
            req = msgspec.msgpack.decode(offer.request, type=OpenMatch)
            await self.settle(match_id, m.state, m.game_id, blamed(req, m.absent, m.declined),
                              None)

    async def socket_closed(self, socket: str) -> None:
        if socket not in self.sockets:
            return
        self.sockets.discard(socket)  # no longer stamped: it expires if this fails
        try:
            for ticket in await qs.drop_socket(self.pool, self.gateway, socket):
                _log.info("queue_socket_closed", ticket_id=ticket.ticket_id)
                await self.tell_status(ticket, "none", "socket_closed")
        except Exception as exc:
            _log.warning("queue_socket_close_failed", error=repr(exc))

    async def accept(self, player: str, match_id: str) -> MatchOpened:
        return await self.matches.ready(match_id, player)

    # --- looking -------------------------------------------------------------------------------

    async def state(self, player: str, guest: bool) -> QueueState:
        ticket = await qs.ticket_of(self.pool, player)
        until = await qs.cooldown_until(self.pool, player)
        if ticket is None:
            return QueueState(state="none", cooldown_until=until,
                              **await self.eligibility.blocker(player, guest, until))
        return QueueState(
            state=ticket.state,  # type: ignore[arg-type]
            players=list(ticket.players), partner=ticket.partner,
            since=ticket.since_ms, window=window_of(self.rules, ticket.since_ms, now_ms()),
            match_id=ticket.match_id, cooldown_until=until)

    async def stats(self) -> QueueStats:
        return _stats(*await qs.stats(self.pool))


def _stats(tickets: list[qs.TicketRow], waits: list[int], matched: int) -> QueueStats:
    """Who waits, by rating band, and how long the players matched lately waited."""
    bands: dict[int, list[int]] = {}
    for t in tickets:
        low = int(sum(t.ratings) / len(t.ratings)) // BAND * BAND
        band = bands.setdefault(low, [0, 0])
        band[len(t.players) - 1] += len(t.players)
    return QueueStats(
        waiting_solo=sum(1 for t in tickets if len(t.players) == 1),
        waiting_pair=sum(len(t.players) for t in tickets if len(t.players) == 2),
        bands=[Band(low=low, solo=s, pair=p) for low, (s, p) in sorted(bands.items())],
        in_ready_check=matched,
        matched_10m=len(waits), median_wait_ms=int(statistics.median(waits)) if waits else 0,
        p90_wait_ms=percentile(waits, 0.9))


def blamed(req: OpenMatch, absent: tuple[int, ...], declined: tuple[int, ...]) -> set[str]:
    """Who a failed ready check cools down: those who declined, when someone did (the
    others still had time to accept, and go back to the queue); else the absent."""
    return {req.seats[i].player_id for i in (declined or absent)}


def _gone(player: str, reason: str, cooldowns: dict[str, int],
          absent: set[str]) -> QueueStatus:
    if reason == "declined" and player not in absent:
        reason = "partner_declined"
    return QueueStatus(state="none", reason=reason, cooldown_until=cooldowns.get(player, 0))
