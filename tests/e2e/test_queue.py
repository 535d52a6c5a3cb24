"""The ranked queue over /v1/ws and HTTP on a whole platform: who may queue, pairs,
a ticket tied to its socket, cooldowns, and the typed errors that change nothing."""

from __future__ import annotations

import asyncio
import contextlib
import json
import uuid
from typing import Any

import httpx

from services.lobby.base.clock import now_ms
from tests.e2e.players import Seat, play_until_over
from tests.e2e.ranked import ONE_HAND, Queuer, Ranked, close_all, found, queuers, tag
from tests.services.lobby.harness import Player, start
from tests.waiting import until


async def tickets_of(ranked: Ranked, *players: str) -> list[str]:
    rows = await ranked.sql("SELECT DISTINCT ticket_id FROM queue_members"
                            " WHERE player_id = ANY($1)", list(players))
    return [r["ticket_id"] for r in rows]


async def test_a_guest_may_not_queue(ranked: Ranked) -> None:
    guest = await Player.guest(ranked.lobby(0).url, "Guesty")
    sock = await guest.socket(ranked.lobby(0).ws_url)
    await sock.send({"type": "queue_join", "partner": None})
    error = await sock.of_type("error")
    assert error["code"] == "registered_only"
    assert await tickets_of(ranked, guest.player_id) == []
    await sock.close()
    await guest.aclose()


async def test_a_solo_join_waits_and_its_status_says_since_and_window(ranked: Ranked) -> None:
    q = await Queuer.make(ranked.lobby(0), f"solo{tag()}")
    await q.join()
    status = await q.status("waiting")
    assert status["since"] > 0 and status["window"] == 100 and status["partner"] is None
    state = await q.player.ok("GET", "/v1/queue")
    assert (state["state"], state["players"], state["since"]) == ("waiting", [q.id],
                                                                   status["since"])
    await q.join()
    assert (await q.error())["code"] == "already_queued"
    assert len(await tickets_of(ranked, q.id)) == 1
    left = await q.player.ok("DELETE", "/v1/queue")
    assert left["state"] == "none"
    assert (await q.status("none"))["reason"] == "left"
    assert await tickets_of(ranked, q.id) == []
    assert await q.player.call("DELETE", "/v1/queue") == (404, {
        "code": "not_queued", "message": "you are not in the queue"})
    await q.close()


async def test_concurrent_joins_of_one_player_make_one_ticket(ranked: Ranked) -> None:
    q = await Queuer.make(ranked.lobby(0), f"twice{tag()}")
    other = await q.player.socket(ranked.lobby(1).ws_url)  # a second device, another gateway
    await asyncio.gather(q.join(), other.send({"type": "queue_join", "partner": None}))
    errors = [f for s in (q.sock, other) for f in await _settled(s)
              if f["type"] == "error"]
    assert [e["code"] for e in errors] == ["already_queued"]
    assert len(await tickets_of(ranked, q.id)) == 1
    await other.close()
    await q.close()


async def _settled(sock: object, wait: float = 1.5) -> list[dict[str, object]]:
    """The frames a socket got within ``wait`` seconds."""
    frames = []
    try:
        while True:
            frames.append(await sock.recv(wait))  # type: ignore[attr-defined]
    except TimeoutError:
        return frames


async def test_a_pair_queues_when_both_name_each_other(ranked: Ranked) -> None:
    a = await Queuer.make(ranked.lobby(0), f"pa{tag()}")
    b = await Queuer.make(ranked.lobby(1), f"pb{tag()}")
    await a.join(b.id)
    inviting = await a.status("inviting")
    assert inviting["partner"] == b.id and inviting["invite_until"] > inviting["since"]
    invite = await b.note("queue_invite")
    assert invite["player_id"] == a.id and invite["name"] == a.player.name
    await b.join(a.id)
    for q, partner in ((a, b.id), (b, a.id)):
        status = await q.status("waiting")
        assert status["partner"] == partner
    assert len(await tickets_of(ranked, a.id, b.id)) == 1
    rows = await ranked.sql("SELECT players, state FROM queue_tickets WHERE ticket_id = $1",
                            (await tickets_of(ranked, a.id))[0])
    assert (list(rows[0]["players"]), rows[0]["state"]) == ([a.id, b.id], "waiting")
    stats = await a.player.ok("GET", "/v1/queue/stats")
    assert stats["waiting_pair"] >= 2
    await b.close()  # the ticket goes with either socket
    assert (await a.status("none"))["reason"] == "socket_closed"
    assert await tickets_of(ranked, a.id, b.id) == []
    await a.close()


async def test_a_partner_who_cannot_queue_is_refused_and_nothing_changes(ranked: Ranked) -> None:
    a = await Queuer.make(ranked.lobby(0), f"pr{tag()}")
    guest = await Player.guest(ranked.lobby(0).url, "Guesty")
    busy = await Queuer.make(ranked.lobby(1), f"busy{tag()}")
    await busy.join()
    await busy.status("waiting")
    for partner, code in ((a.id, "partner_unavailable"), (guest.player_id,
                                                          "partner_unavailable"),
                          (str(uuid.uuid4()), "partner_unavailable"),
                          (busy.id, "partner_unavailable"), ("not an id!", "bad_field")):
        await a.join(partner)
        assert (await a.error())["code"] == code, partner
    assert await tickets_of(ranked, a.id) == []
    await close_all([a, busy])
    await guest.aclose()


async def test_malformed_queue_frames_get_typed_errors(ranked: Ranked) -> None:
    q = await Queuer.make(ranked.lobby(0), f"bad{tag()}")
    for frame, code in (({"type": "queue_join", "partner": 5}, "bad_field"),
                        ({"type": "queue_join", "extra": 1}, "bad_field"),
                        ({"type": "queue_accept"}, "bad_field"),
                        ({"type": "queue_accept", "match_id": "../x"}, "bad_field"),
                        ({"type": "queue_leave"}, "not_queued")):
        await q.sock.send(frame)
        assert (await q.error())["code"] == code, frame
    assert await tickets_of(ranked, q.id) == []
    await q.close()


async def test_a_cooldown_refuses_a_join_and_says_until_when(ranked: Ranked) -> None:
    q = await Queuer.make(ranked.lobby(0), f"cool{tag()}")
    await ranked.sql("INSERT INTO queue_penalties (player_id, until, strikes)"
                     " VALUES ($1, now() + interval '1 minute', 1)", q.id)
    await q.join()
    error = await q.error()
    state = await q.player.ok("GET", "/v1/queue")
    assert error["code"] == "queue_cooldown" and error["until"] == state["cooldown_until"] > 0
    assert state["state"] == "none"
    await q.close()


async def test_a_player_in_a_game_may_not_queue(ranked: Ranked) -> None:
    q = await Queuer.make(ranked.lobby(0), f"ingame{tag()}")
    table = await q.player.ok("POST", "/v1/tables", {"rules": "classic", "private": True})
    await q.player.ok("POST", f"/v1/tables/{table['table_id']}/start")
    await q.join()
    assert (await q.error())["code"] == "in_game"
    assert await tickets_of(ranked, q.id) == []
    await q.close()


async def test_a_player_whose_game_ended_may_queue_at_once(ranked: Ranked) -> None:
    """The moment the socket shows GameEnded, the player is no longer in a game."""
    q = await Queuer.make(ranked.lobby(0), f"ended{tag()}")
    table = await q.player.ok("POST", "/v1/tables", {"rules": json.loads(ONE_HAND),
                                                     "private": True})
    table = await q.player.ok("POST", f"/v1/tables/{table['table_id']}/start")
    seat = Seat(q.player, q.sock, table["game_id"])
    await seat.subscribe()
    await play_until_over([seat])
    await q.join()
    got = await q.sock.until(lambda f: f["type"] == "error" or (
        f["type"] == "note" and f["note"]["kind"] == "queue_status"))
    assert got["type"] == "note" and got["note"]["state"] == "waiting", got
    await ranked.drain([q])


async def test_a_dead_gateways_tickets_expire(ranked: Ranked) -> None:
    lobby = ranked.start_lobby(f"lobby-doomed-{tag()}")
    q = await Queuer.make(lobby, f"doomed{tag()}")
    await q.join()
    await q.status("waiting")
    lobby.proc.kill()  # no goodbye: its sockets never close in its own eyes
    lobby.proc.wait()
    ranked.gateways.remove(lobby)

    async def gone() -> bool:
        return await tickets_of(ranked, q.id) == []
    await until(gone, timeout=15)
    with contextlib.suppress(Exception):
        await q.sock.close()
    await q.player.aclose()


async def test_queue_routes_need_a_token(ranked: Ranked) -> None:
    async with httpx.AsyncClient(base_url=ranked.lobby(0).url) as http:
        for method, path in (("GET", "/v1/queue"), ("DELETE", "/v1/queue"),
                             ("GET", "/v1/queue/stats")):
            r = await http.request(method, path)
            assert r.status_code == 401, (method, path)


# --- matching, the ready check, and the games it starts ------------------------------------


async def test_leaving_during_a_ready_check_answers_the_state_after_the_decline(
        ranked: Ranked) -> None:
    four = await queuers(ranked, 4, "del")
    for q in four:
        await q.join()
    await found(four)
    # Matched, they are still queued: the counts say so rather than "0 waiting".
    stats = await four[0].player.ok("GET", "/v1/queue/stats")
    assert stats["in_ready_check"] >= 4, stats
    decliner = four[0]
    left = await decliner.player.ok("DELETE", "/v1/queue")
    assert (left["state"], left["match_id"]) == ("none", None), left
    assert left["cooldown_until"] > now_ms(), left
    gone = await decliner.status("none")
    assert (gone["reason"], gone["cooldown_until"]) == ("declined", left["cooldown_until"])
    assert await decliner.player.ok("GET", "/v1/queue") == left
    for q in four[1:]:
        await q.status("waiting")
    await ranked.drain(four)


async def test_a_decline_requeues_the_others_with_their_wait_and_cools_the_decliner(
        ranked: Ranked) -> None:
    four = await queuers(ranked, 4, "dec")
    for q in four:
        await q.join()
    since = {q.id: (await q.status("waiting"))["since"] for q in four}
    offers = await found(four)
    assert len({o["match_id"] for o in offers}) == 1
    assert sorted(o["seat"] for o in offers) == [0, 1, 2, 3]
    # docs/protocol.md: teams[t][i] sits at seat t + 2 i, and every note says the same teams.
    for q, o in zip(four, offers, strict=True):
        teams: Any = o["teams"]
        seat: Any = o["seat"]
        assert teams[seat % 2][seat // 2]["player_id"] == q.id
        assert teams == offers[0]["teams"]
    match_id = offers[0]["match_id"]
    decliner, rest = four[0], four[1:]
    await rest[0].sock.send({"type": "queue_accept", "match_id": match_id})
    assert (await rest[0].sock.of_type("match"))["match"]["state"] == "ready_check"
    # The others have not answered yet: only the one who declined is to blame.
    await decliner.sock.send({"type": "queue_leave"})
    gone = await decliner.status("none")
    assert gone["reason"] == "declined" and gone["cooldown_until"] > 0
    for q in rest:
        back = await q.status("waiting")
        assert back["since"] == since[q.id]  # the wait is kept
    state = await decliner.player.ok("GET", "/v1/queue")
    assert (state["state"], state["cooldown_until"]) == ("none", gone["cooldown_until"])
    await decliner.join()
    assert (await decliner.error())["code"] == "queue_cooldown"
    await ranked.drain(four)


async def test_a_player_who_does_not_accept_in_time_is_cooled_down(ranked: Ranked) -> None:
    four = await queuers(ranked, 4, "slow")
    for q in four:
        await q.join()
    offers = await found(four)
    silent, rest = four[3], four[:3]
    for q in rest:
        await q.sock.send({"type": "queue_accept", "match_id": offers[0]["match_id"]})
    assert (await silent.status("none", timeout=20))["cooldown_until"] > 0
    for q in rest:
        await q.status("waiting", timeout=20)
    await ranked.drain(four)


async def test_accepting_a_match_one_is_not_in_is_refused(ranked: Ranked) -> None:
    four = await queuers(ranked, 4, "acc")
    outsider = await Queuer.make(ranked.lobby(0), f"out{tag()}")
    for q in four:
        await q.join()
    offers = await found(four)
    for match_id, code in ((offers[0]["match_id"], "not_in_match"),
                           ("nosuchmatch", "match_not_found")):
        await outsider.sock.send({"type": "queue_accept", "match_id": match_id})
        assert (await outsider.error())["code"] == code
    await ranked.drain([*four, outsider])


async def test_eight_players_two_pairs_and_four_solos_play_two_rated_games_and_ratings_move(
        ranked: Ranked) -> None:
    pairs = [await queuers(ranked, 2, "pair") for _ in range(2)]
    solos = await queuers(ranked, 4, "solo")
    for a, b in pairs:
        await a.join(b.id)
        await b.note("queue_invite")
        await b.join(a.id)
        await a.status("waiting")
    for q in solos:
        await q.join()
    everyone = [*pairs[0], *pairs[1], *solos]
    offers = dict(zip([q.id for q in everyone], await found(everyone), strict=True))
    by_match: dict[str, list[Queuer]] = {}
    for q in everyone:
        by_match.setdefault(str(offers[q.id]["match_id"]), []).append(q)
    assert len(by_match) == 2
    for group in by_match.values():  # the pairs play each other, the solos each other
        ids = {q.id for q in group}
        assert ids in ({q.id for p in pairs for q in p}, {q.id for q in solos})
        teams = offers[group[0].id]["teams"]
        for a, b in pairs:
            if a.id in ids:
                assert any({a.id, b.id} == {t[0]["player_id"], t[1]["player_id"]}
                           for t in teams)
    for q in everyone:
        await q.sock.send({"type": "queue_accept", "match_id": offers[q.id]["match_id"]})
    started = {q.id: await q.note("match_started", 20) for q in everyone}
    assert all(n["rated"] and n["origin"] == "queue" for n in started.values())
    for q in everyone:  # out of the queue once the matchmaker saw the games start
        assert (await q.status("none"))["reason"] == "started"
    games = []
    for group in by_match.values():
        seats = [Seat(q.player, q.sock, str(started[q.id]["game_id"])) for q in group]
        for s in seats:
            await s.subscribe()
        games.append(seats)
    await asyncio.gather(*(play_until_over(seats) for seats in games))
    for seats in games:
        ended = seats[0].ended
        assert ended is not None and ended["rated"] and ended["abandoned"] == []
        winner = ended["winner"]
        for s in seats:  # four 1500s, provisional K 40: +-20, or 0 for a draw
            assert s.seat is not None
            want = 1500 if winner is None else 1520 if s.seat % 2 == winner else 1480

            async def moved(s: Seat = s, want: int = want) -> bool:
                page = await s.player.ok("GET", f"/v1/players/{s.player.player_id}")
                return page["ranked"] is not None and page["ranked"]["rating"] == want \
                    and page["ranked"]["games"] == 1
            await until(moved, timeout=30)

            async def listed(s: Seat = s) -> bool:  # the history's own consumer may trail
                page = await s.player.ok("GET", f"/v1/players/{s.player.player_id}/games")
                return bool(page["games"])
            await until(listed, timeout=30)
            game = (await s.player.ok(
                "GET", f"/v1/players/{s.player.player_id}/games"))["games"][0]
            assert (game["game_id"], game["origin"], game["rated"], game["seat"]) == (
                s.game_id, "queue", True, s.seat)
            assert game["rating"] == {"before": 1500, "after": want, "delta": want - 1500}

    async def on_the_board() -> bool:  # recomputed every second on this platform
        board = await everyone[0].player.ok("GET",
                                            "/v1/leaderboard?provisional=true&limit=200")
        return {q.id for q in everyone} <= {e["player_id"] for e in board["entries"]}
    await until(on_the_board, timeout=30)
    rows = await ranked.sql("SELECT state, game_id FROM queue_matches WHERE match_id = ANY($1)",
                            list(by_match))
    assert sorted(r["state"] for r in rows) == ["started", "started"]
    assert await tickets_of(ranked, *[q.id for q in everyone]) == []
    await ranked.drain(everyone)


async def test_the_other_lobby_takes_over_matchmaking_when_the_leader_dies(
        ranked: Ranked) -> None:
    holder = await until(ranked.leader, timeout=10)
    [leader] = [g for g in ranked.gateways if g.log.stem == holder]
    survivors = [g for g in ranked.gateways if g is not leader]
    leader.proc.kill()  # kill -9: no release, the lease must lapse
    leader.proc.wait()
    ranked.gateways.remove(leader)
    try:
        four = [await Queuer.make(survivors[i % len(survivors)], f"fo{tag()}{i}")
                for i in range(4)]
        for q in four:
            await q.join()
        offers = await found(four, timeout=20)
        assert len({o["match_id"] for o in offers}) == 1
        assert await ranked.leader() in {g.log.stem for g in survivors}
        await ranked.drain(four)
    finally:
        ranked.start_lobby(f"lobby-back-{tag()}")


async def test_a_leader_stopped_hands_the_matchmaker_on_at_once(ranked: Ranked) -> None:
    """SIGTERM: the leader lets its lease go as it stops, so no cycle waits for the lease
    to lapse (``SPADES_MATCHMAKER_LEASE_SECONDS``)."""
    holder = await until(ranked.leader, timeout=10)
    [leader] = [g for g in ranked.gateways if g.log.stem == holder]
    ranked.gateways.remove(leader)
    try:
        await asyncio.to_thread(leader.stop)  # SIGTERM, and waits for the process to end
        rows = await ranked.sql("SELECT holder, until > now() AS held FROM leases"
                                " WHERE name = 'matchmaker'")
        assert not (rows[0]["holder"] == holder and rows[0]["held"]), "the lease was kept"
        assert '"matchmaker_released"' in leader.log.read_text()
        survivors = {g.log.stem for g in ranked.gateways}
        assert await until(ranked.leader, timeout=10) in survivors
    finally:
        ranked.start_lobby(f"lobby-back-{tag()}")


async def test_a_queued_players_place_survives_their_lobby_copys_restart(
        ranked: Ranked) -> None:
    """SIGTERM drains the copy: its sockets get ``moving`` and close 1012, and the ticket
    waits for the player's next socket, on the other copy, which takes it over."""
    going, staying = ranked.gateways[0], ranked.gateways[1]
    q = await Queuer.make(going, f"mv{tag()}")
    await q.join()
    waiting = await q.status("waiting")
    ranked.gateways.remove(going)
    try:
        await asyncio.to_thread(going.stop)
        moved = await q.sock.of_type("moving", timeout=10)
        assert "restarting" in moved["message"]
        with contextlib.suppress(Exception):
            await q.sock.recv(5)
        assert q.sock.conn.close_code == 1012
        rows = await ranked.sql("SELECT socket FROM queue_members WHERE player_id = $1", q.id)
        assert [r["socket"] for r in rows] == [""]  # waiting for the player's next socket
        q.sock = await q.player.socket(staying.ws_url)

        async def taken_over() -> bool:
            rows = await ranked.sql("SELECT m.socket, t.state FROM queue_members m JOIN"
                                    " queue_tickets t USING (ticket_id) WHERE player_id = $1",
                                    q.id)
            return bool(rows) and rows[0]["socket"] != "" and rows[0]["state"] == "waiting"

        await until(taken_over, timeout=10)
        async with httpx.AsyncClient(base_url=staying.url, timeout=30) as http:
            state = (await http.get("/v1/queue", headers={
                "Authorization": f"Bearer {q.player.token}"})).json()
        assert state["state"] == "waiting" and state["since"] == waiting["since"]
        await ranked.drain([q])  # the new socket's close takes the ticket with it
    finally:
        ranked.start_lobby(f"lobby-back-{tag()}")


async def test_without_the_ratings_service_a_join_is_refused_and_nothing_changes(
        ranked: Ranked) -> None:
    q = await Queuer.make(ranked.lobby(0), f"norat{tag()}")
    ranked.ratings.stop()
    try:
        await q.join()
        error = await q.error(timeout=15)
        assert error["code"] == "ratings_unavailable"
        assert await tickets_of(ranked, q.id) == []
    finally:
        ranked.ratings = start("ratings", ranked.logs / f"ratings-{tag()}.log",
                               SPADES_LEADERBOARD_REFRESH_SECONDS="1", **ranked.env)
    await q.join()
    await q.status("waiting")
    await q.close()


async def test_a_player_who_leaves_a_ranked_game_loses_and_cools_down_and_the_partner_not(
        ranked: Ranked) -> None:
    four = await queuers(ranked, 4, "lv")
    for q in four:
        await q.join()
    offers = await found(four)
    for q, offer in zip(four, offers, strict=True):
        await q.sock.send({"type": "queue_accept", "match_id": offer["match_id"]})
    notes = [await q.note("match_started", 20) for q in four]
    for q in four:  # out of the queue once the matchmaker saw the game start
        assert (await q.status("none"))["reason"] == "started"
    seats = [Seat(q.player, q.sock, str(n["game_id"])) for q, n in zip(four, notes, strict=True)]
    for s in seats:
        await s.subscribe()
    leaver = next(s for s in seats if s.seat == 0)
    partner = next(s for s in seats if s.seat == 2)
    await leaver.sock.send({"type": "leave", "command_id": "bye", "game_id": leaver.game_id,
                            "seat": 0})
    await leaver.sock.until(lambda f: f["type"] == "ack" and f["command_id"] == "bye")
    await play_until_over([s for s in seats if s is not leaver])
    ended = partner.ended
    assert ended is not None and 0 in ended["abandoned"]

    async def rated() -> dict[str, object] | None:
        page = await leaver.player.ok("GET", f"/v1/players/{leaver.player.player_id}")
        return page["ranked"] if page["ranked"] and page["ranked"]["games"] else None
    ranked_page = await until(rated, timeout=30)
    assert ranked_page["left"] == 1 and ranked_page["rating"] < 1500
    by_id = {q.id: q for q in four}

    async def cooled() -> bool:
        state = await by_id[leaver.player.player_id].player.ok("GET", "/v1/queue")
        return bool(state["cooldown_until"] > now_ms() + 7_000_000)
    await until(cooled, timeout=30)
    await by_id[leaver.player.player_id].join()
    err = await by_id[leaver.player.player_id].error()
    assert err["code"] == "queue_cooldown"
    partner_q = by_id[partner.player.player_id]
    assert (await partner_q.player.ok("GET", "/v1/queue"))["cooldown_until"] == 0
    await ranked.drain(four)


async def test_the_leading_matchmaker_reports_its_cycles_waits_and_gaps(ranked: Ranked) -> None:
    four = await queuers(ranked, 4, "met")
    for q in four:
        await q.join()
    await found(four)
    holder = await until(ranked.leader, timeout=10)
    [leader] = [g for g in ranked.gateways if g.log.stem == holder]
    async with httpx.AsyncClient(base_url=leader.url) as http:
        text = (await http.get("/metrics")).text
    for name in ("spades_queue_cycle_seconds_count", "spades_queue_wait_seconds_count",
                 "spades_queue_team_gap_count", 'spades_queue_waiting_players{kind="solo"}'):
        assert name in text, name
    count = next(line for line in text.splitlines()
                 if line.startswith("spades_queue_team_gap_count"))
    assert float(count.split()[-1]) >= 1
    await ranked.drain(four)
