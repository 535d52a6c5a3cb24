"""The ranked queue's tables (migration 0010): tickets, members, offers, cooldowns.

Every change a cancel can race is one statement or one transaction guarded by
the ticket's ``state`` and ``version``: a second join of a player hits
``queue_members``' primary key, a leave deletes only a ticket still waiting, and
the matchmaker marks a ticket matched only at the version it read, inside a
transaction fenced by its lease's epoch (``lease_check``). So a player ends a
race in a match or out of the queue, never both.
"""

from __future__ import annotations

from dataclasses import dataclass

import asyncpg

from schemas.events import GameEnded
from schemas.seats import partner_of
from services.platform.lease import Leases

AlreadyQueued = asyncpg.UniqueViolationError


@dataclass(frozen=True, slots=True)
class TicketRow:
    ticket_id: str
    players: tuple[str, ...]
    ratings: tuple[int, ...]
    partner: str | None
    since_ms: int
    state: str
    match_id: str | None
    version: int


@dataclass(frozen=True, slots=True)
class Waiting:
    """A waiting ticket with what the matcher's penalties need."""

    ticket: TicketRow
    last_players: frozenset[str]
    last_partner: str
    leaver: bool


@dataclass(frozen=True, slots=True)
class Offer:
    match_id: str
    tickets: tuple[tuple[str, int], ...]  # (ticket id, version read)
    players: tuple[str, str, str, str]  # seat order
    ratings: tuple[int, int, int, int]
    gap: float
    waited_ms: tuple[int, int, int, int]
    request: bytes


@dataclass(frozen=True, slots=True)
class OfferRow:
    match_id: str
    tickets: tuple[str, ...]
    players: tuple[str, ...]
    request: bytes
    created_ms: int


@dataclass(frozen=True, slots=True)
class Settled:
    """Who a finished offer put back in the queue, and who it took out."""

    requeued: tuple[TicketRow, ...]
    dropped: tuple[str, ...]  # players out of the queue (started, or absent and their partner)
    penalised: tuple[tuple[str, int], ...]  # (player, cooldown until ms)


_TICKET = "t.ticket_id, t.players, t.ratings, t.partner, t.since, t.state, t.match_id, t.version"


def _ms(value: object) -> int:
    return int(value.timestamp() * 1000)  # type: ignore[attr-defined]


def _ticket(r: asyncpg.Record) -> TicketRow:
    return TicketRow(ticket_id=r["ticket_id"], players=tuple(r["players"]),
                     ratings=tuple(r["ratings"]), partner=r["partner"], since_ms=_ms(r["since"]),
                     state=r["state"], match_id=r["match_id"], version=r["version"])


# --- joining and leaving ---------------------------------------------------------------------


async def join(pool: asyncpg.Pool, ticket_id: str, player: str, rating: int, gateway: str,
               socket: str, partner: str | None, partner_rating: int,
               invite_seconds: float) -> TicketRow:
    """A solo ticket (``partner`` None), an invite to ``partner``, or, when ``partner``
    invited this player less than ``invite_seconds`` ago, their pair's ticket, waiting.
    ``AlreadyQueued`` when the player has a ticket."""
    async with pool.acquire() as conn, conn.transaction():
        if partner is None:
            row = await conn.fetchrow(
                "INSERT INTO queue_tickets AS t (ticket_id, players, ratings, state)"
                f" VALUES ($1, $2, $3, 'waiting') RETURNING {_TICKET}",
                ticket_id, [player], [rating])
        else:
            # Two who name each other at the same moment: one waits for the other.
            await conn.execute("SELECT pg_advisory_xact_lock(hashtext($1))",
                               ":".join(sorted((player, partner))))
            row = await conn.fetchrow(
                "UPDATE queue_tickets AS t SET players = ARRAY[t.players[1], $2],"
                " ratings = ARRAY[$3::integer, $4::integer], partner = NULL, since = now(),"
                " state = 'waiting', version = t.version + 1"
                " WHERE t.state = 'inviting' AND t.players = ARRAY[$1] AND t.partner = $2"
                "   AND t.since > now() - make_interval(secs => $5)"
                f" RETURNING {_TICKET}", partner, player, partner_rating, rating, invite_seconds)
            if row is None:
                row = await conn.fetchrow(
                    "INSERT INTO queue_tickets AS t (ticket_id, players, ratings, partner, state)"
                    f" VALUES ($1, $2, $3, $4, 'inviting') RETURNING {_TICKET}",
                    ticket_id, [player], [rating], partner)
        ticket = _ticket(row)
        await conn.execute(
            "INSERT INTO queue_members (player_id, ticket_id, gateway, socket)"
            " VALUES ($1, $2, $3, $4)", player, ticket.ticket_id, gateway, socket)
        return ticket


async def leave(pool: asyncpg.Pool, player: str) -> TicketRow | None:
    """Take the player's ticket out of the queue if it is not matched: the ticket as it
    was (a matched one is returned untouched), or None when the player has none."""
    async with pool.acquire() as conn, conn.transaction():
        row = await conn.fetchrow(
            f"SELECT {_TICKET} FROM queue_tickets t JOIN queue_members m USING (ticket_id)"
            " WHERE m.player_id = $1 FOR UPDATE OF t", player)
        if row is None:
            return None
        ticket = _ticket(row)
        if ticket.state != "matched":
            await conn.execute("DELETE FROM queue_tickets WHERE ticket_id = $1",
                               ticket.ticket_id)
        return ticket


async def drop_socket(pool: asyncpg.Pool, gateway: str, socket: str) -> list[TicketRow]:
    """The tickets (not matched) a closed socket kept in the queue, deleted."""
    rows = await pool.fetch(
        "DELETE FROM queue_tickets t USING queue_members m"
        " WHERE m.ticket_id = t.ticket_id AND m.gateway = $1 AND m.socket = $2"
        f"   AND t.state <> 'matched' RETURNING {_TICKET}", gateway, socket)
    return [_ticket(r) for r in rows]


MOVED = ""  # a member's socket while its player reconnects after their lobby copy moved them


async def moving(pool: asyncpg.Pool, gateway: str, sockets: list[str]) -> int:
    """Moved sockets' members: no socket, stamped now (``moving.QueueMoves``)."""
    done = await pool.execute(
        "UPDATE queue_members SET socket = $3, heartbeat_at = now()"
        " WHERE gateway = $1 AND socket = ANY($2)", gateway, sockets, MOVED)
    return int(done.split()[-1])


async def adopt(pool: asyncpg.Pool, player: str, gateway: str, socket: str) -> bool:
    """The player's moved membership, taken by their new socket; False if none."""
    row = await pool.fetchval(
        "UPDATE queue_members SET gateway = $2, socket = $3, heartbeat_at = now()"
        " WHERE player_id = $1 AND socket = $4 RETURNING true", player, gateway, socket, MOVED)
    return bool(row)


async def heartbeat(pool: asyncpg.Pool, gateway: str, sockets: list[str]) -> int:
    """Stamp the members whose sockets are open on this gateway (a closed socket's
    ticket that was not dropped then expires)."""
    if not sockets:
        return 0
    await pool.execute("UPDATE queue_members SET heartbeat_at = now()"
                       " WHERE gateway = $1 AND socket = ANY($2)", gateway, sockets)
    return 0  # nothing worth logging every few seconds


async def ticket_of(pool: asyncpg.Pool, player: str) -> TicketRow | None:
    row = await pool.fetchrow(
        f"SELECT {_TICKET} FROM queue_tickets t JOIN queue_members m USING (ticket_id)"
        " WHERE m.player_id = $1", player)
    return None if row is None else _ticket(row)


async def cooldown_until(pool: asyncpg.Pool, player: str) -> int:
    """When the player's cooldown ends (ms), or 0 without one."""
    until = await pool.fetchval("SELECT until FROM queue_penalties WHERE player_id = $1"
                                " AND until > now()", player)
    return 0 if until is None else _ms(until)


# --- the matchmaker (every write fenced by its lease) -----------------------------------------


async def queued(pool: asyncpg.Pool) -> list[str]:
    """Every player holding a ticket: inviting, waiting or matched."""
    return [r[0] for r in await pool.fetch("SELECT player_id FROM queue_members ORDER BY 1")]


async def drop_players(pool: asyncpg.Pool, fence: tuple[str, int],
                       players: list[str]) -> tuple[list[TicketRow], list[TicketRow]]:
    """Delete the tickets not matched holding any of ``players``, fenced by the
    matchmaker's lease: (those deleted, the matched ones holding any, left as they are)."""
    async with pool.acquire() as conn, conn.transaction():
        await Leases.check(conn, *fence)
        gone = await conn.fetch("DELETE FROM queue_tickets t WHERE t.state <> 'matched'"
                                f" AND t.players && $1::text[] RETURNING {_TICKET}", players)
        matched = await conn.fetch(
            f"SELECT {_TICKET} FROM queue_tickets t WHERE t.state = 'matched'"
            " AND t.players && $1::text[]", players)
    return [_ticket(r) for r in gone], [_ticket(r) for r in matched]


async def expire(pool: asyncpg.Pool, name: str, epoch: int, stale_seconds: float,
                 invite_seconds: float) -> list[tuple[TicketRow, str]]:
    """Delete the tickets of gateways that stopped beating and the invites nobody
    answered in time: (ticket, reason)."""
    async with pool.acquire() as conn, conn.transaction():
        await Leases.check(conn, name, epoch)
        stale = await conn.fetch(
            "DELETE FROM queue_tickets t WHERE t.state <> 'matched' AND EXISTS ("
            "  SELECT 1 FROM queue_members m WHERE m.ticket_id = t.ticket_id"
            "  AND m.heartbeat_at < now() - make_interval(secs => $1))"
            f" RETURNING {_TICKET}", stale_seconds)
        invites = await conn.fetch(
            "DELETE FROM queue_tickets t WHERE t.state = 'inviting'"
            f" AND t.since < now() - make_interval(secs => $1) RETURNING {_TICKET}",
            invite_seconds)
    return ([(_ticket(r), "gateway_lost") for r in stale]
            + [(_ticket(r), "invite_expired") for r in invites])


async def waiting(pool: asyncpg.Pool, leaver_seconds: float) -> list[Waiting]:
    """The waiting tickets, with each ticket's last started queue game (its four, and a
    solo's partner there) and whether a player of it left a rated game lately."""
    rows = await pool.fetch(
        f"SELECT {_TICKET},"
        "  (SELECT q.players FROM queue_matches q WHERE q.players && t.players"
        "   AND q.state = 'started' ORDER BY q.created_at DESC LIMIT 1) AS last_players,"
        "  EXISTS (SELECT 1 FROM queue_penalties p WHERE p.player_id = ANY(t.players)"
        "   AND p.left_at > now() - make_interval(secs => $1)) AS leaver"
        " FROM queue_tickets t WHERE t.state = 'waiting'", leaver_seconds)
    out = []
    for r in rows:
        ticket = _ticket(r)
        last = tuple(r["last_players"] or ())
        partner = ""
        if len(ticket.players) == 1 and ticket.players[0] in last:
            seat = last.index(ticket.players[0])
            partner = last[partner_of(seat)]
        out.append(Waiting(ticket, frozenset(last), partner, bool(r["leaver"])))
    return out


async def commit_offers(pool: asyncpg.Pool, name: str, epoch: int,
                        offers: list[Offer]) -> list[Offer]:
    """Record the offers whose tickets are all still waiting at the version read, in
    one transaction under the lease's epoch; the others are dropped. FencedError when
    another matchmaker took over: then nothing is recorded."""
    kept = []
    async with pool.acquire() as conn, conn.transaction():
        await Leases.check(conn, name, epoch)
        for offer in offers:
            ids = [t for t, _ in offer.tickets]
            versions = [v for _, v in offer.tickets]
            try:
                async with conn.transaction():  # a savepoint: a changed ticket undoes the offer
                    moved = await conn.fetchval(
                        "WITH want AS (SELECT * FROM unnest($1::text[], $2::integer[])"
                        "   AS w(id, v)),"
                        " moved AS (UPDATE queue_tickets t SET state = 'matched',"
                        "   match_id = $3, version = t.version + 1 FROM want"
                        "   WHERE t.ticket_id = want.id AND t.version = want.v"
                        "   AND t.state = 'waiting' RETURNING 1)"
                        " SELECT count(*) FROM moved", ids, versions, offer.match_id)
                    if moved != len(ids):
                        raise _Changed
                    await conn.execute(
                        "INSERT INTO queue_matches (match_id, tickets, players, ratings, gap,"
                        " waited_ms, request, epoch) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
                        offer.match_id, ids, list(offer.players), list(offer.ratings),
                        offer.gap, list(offer.waited_ms), offer.request, epoch)
            except _Changed:
                continue
            kept.append(offer)
    return kept


class _Changed(Exception):
    pass


async def offered(pool: asyncpg.Pool) -> list[OfferRow]:
    rows = await pool.fetch("SELECT match_id, tickets, players, request, created_at"
                            " FROM queue_matches WHERE state = 'offered' ORDER BY created_at")
    return [OfferRow(r["match_id"], tuple(r["tickets"]), tuple(r["players"]), r["request"],
                     _ms(r["created_at"])) for r in rows]


async def offer(pool: asyncpg.Pool, match_id: str) -> OfferRow | None:
    """An offer still waiting for its match's ready check to end, or None."""
    r = await pool.fetchrow("SELECT match_id, tickets, players, request, created_at"
                            " FROM queue_matches WHERE match_id = $1 AND state = 'offered'",
                            match_id)
    return None if r is None else OfferRow(r["match_id"], tuple(r["tickets"]),
                                           tuple(r["players"]), r["request"],
                                           _ms(r["created_at"]))


async def settle(pool: asyncpg.Pool, fence: tuple[str, int] | None, match_id: str, state: str,
                 game_id: str, absent: set[str], cooldown_seconds: float,
                 cooldown_max_seconds: float) -> Settled | None:
    """End an offer: ``started`` takes its tickets out of the queue; ``not_ready`` and
    ``failed`` put back the tickets whose players all confirmed, keeping their
    ``since``, and take out (and cool down) the ``absent`` players' tickets. None when
    the offer was settled already.

    ``fence`` (lease name, epoch): the matchmaker's. None for a match whose start has
    ended (a final state, the same whoever reads it): then any lobby copy may settle
    it, and the offer's row lock lets exactly one do it."""
    async with pool.acquire() as conn, conn.transaction():
        if fence is not None:
            await Leases.check(conn, *fence)
        done = await conn.fetchval(
            "UPDATE queue_matches SET state = $2, game_id = nullif($3, ''), ended_at = now()"
            " WHERE match_id = $1 AND state = 'offered' RETURNING true",
            match_id, state, game_id)
        if not done:
            return None
        rows = await conn.fetch(f"SELECT {_TICKET} FROM queue_tickets t WHERE t.match_id = $1"
                                " FOR UPDATE", match_id)
        tickets = [_ticket(r) for r in rows]
        if state == "started":
            back: list[TicketRow] = []
            out = tickets
        else:
            back = [t for t in tickets if not absent & set(t.players)]
            out = [t for t in tickets if absent & set(t.players)]
        await conn.execute("DELETE FROM queue_tickets WHERE ticket_id = ANY($1)",
                           [t.ticket_id for t in out])
        requeued = await conn.fetch(
            "UPDATE queue_tickets t SET state = 'waiting', match_id = NULL,"
            f" version = t.version + 1 WHERE t.ticket_id = ANY($1) RETURNING {_TICKET}",
            [t.ticket_id for t in back])
        penalised = []
        for player in sorted(absent):
            until = await conn.fetchval(
                "INSERT INTO queue_penalties AS p (player_id, until, strikes, struck_at)"
                " VALUES ($1, now() + make_interval(secs => $2), 1, now())"
                " ON CONFLICT (player_id) DO UPDATE SET"
                "  strikes = CASE WHEN p.struck_at > now() - interval '1 day'"
                "                 THEN p.strikes + 1 ELSE 1 END,"
                "  struck_at = now(),"
                "  until = greatest(p.until, now() + make_interval(secs => least($3,"
                "    $2 * power(2, CASE WHEN p.struck_at > now() - interval '1 day'"
                "                       THEN p.strikes ELSE 0 END))))"
                " RETURNING until", player, cooldown_seconds, cooldown_max_seconds)
            penalised.append((player, _ms(until)))
    return Settled(requeued=tuple(_ticket(r) for r in requeued),
                   dropped=tuple(p for t in out for p in t.players),
                   penalised=tuple(penalised))


def left_seats(ended: GameEnded) -> tuple[int, ...]:
    """The seats whose player left the game: those a bot played at the end, and the seat
    whose leaving (or clock) forfeited it."""
    return tuple(sorted({*ended.abandoned,
                         *(() if ended.forfeited_by is None else (ended.forfeited_by,))}))


async def leavers(conn: asyncpg.Connection, game_id: str, seats: tuple[int, ...],
                  players: tuple[str, ...], seconds: float) -> None:
    """Inside the GameEnded consumer's transaction: the players who abandoned a rated
    game may not queue for ``seconds`` (their partners may)."""
    left = [players[s] for s in seats if 0 <= s < len(players) and players[s]
            and not players[s].startswith("bot:")]
    if left:
        await conn.execute(
            "INSERT INTO queue_penalties AS p (player_id, until, left_at)"
            " SELECT x, now() + make_interval(secs => $2), now() FROM unnest($1::text[]) x"
            " ON CONFLICT (player_id) DO UPDATE SET left_at = now(),"
            "  until = greatest(p.until, EXCLUDED.until)", left, seconds)


# --- what anyone may see --------------------------------------------------------------------


async def stats(pool: asyncpg.Pool) -> tuple[list[TicketRow], list[int], int]:
    """The waiting tickets, the waits (ms) of the players offered a match in the last
    ten minutes, and how many players are in a match's ready check now."""
    tickets = await pool.fetch(f"SELECT {_TICKET} FROM queue_tickets t WHERE state = 'waiting'")
    waits = await pool.fetchval(
        "SELECT coalesce(array_agg(w ORDER BY w), '{}') FROM queue_matches q,"
        " unnest(q.waited_ms) w WHERE q.created_at > now() - interval '10 minutes'")
    matched = await pool.fetchval("SELECT coalesce(sum(cardinality(players)), 0)::int"
                                  " FROM queue_tickets WHERE state = 'matched'")
    return [_ticket(r) for r in tickets], [int(w) for w in waits], int(matched)

