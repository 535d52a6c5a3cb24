"""Tournaments through the lobby: the organizer role, the /v1/tournaments routes and the
``watch_tournament`` frame, on real lobby, tournament and ratings processes."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import msgspec
from nats.aio.client import Client

from schemas import ws
from schemas.bus import EventEnvelope
from schemas.subjects import Names
from services.lobby.accounts.auth import Claims
from services.lobby.base.settings import LobbySettings
from services.lobby.clients.broadcasts import Broadcasts
from services.lobby.clients.ratings import RatingsBus
from services.lobby.clients.tournaments import TournamentBus
from services.lobby.edge.connections import Connections
from services.lobby.edge.tournamentfeed import TournamentFeed
from services.lobby.tournaments.relay import Tournaments
from services.platform.busclient import BusClient
from services.platform.db import create_pool
from tests.services.lobby.harness import ROOT, Player, Service
from tests.waiting import until

PASSWORD = "a long organizer password"
MINUTE = 60_000


def role(database_url: str, kind: str, action: str, name: str) -> subprocess.CompletedProcess[str]:
    """``spades organizer|operator grant|revoke NAME``, as a deployment runs it."""
    return subprocess.run([sys.executable, "-m", "services.cli", kind, action, name],
                          env={**os.environ, "DATABASE_URL": database_url,
                               "PYTHONPATH": str(ROOT)},
                          cwd=ROOT, capture_output=True, text=True, timeout=30)


async def registered(base: str, prefix: str = "p") -> Player:
    return await Player.registered(base, f"{prefix}{uuid.uuid4().hex[:10]}", PASSWORD)


async def signed_in_again(who: Player) -> Player:
    r = await who.http.post("/v1/auth/login", json={"name": who.name, "password": PASSWORD})
    assert r.status_code == 200, r.text
    who.token = r.json()["token"]
    who.http.headers["authorization"] = f"Bearer {who.token}"
    return who


async def organizer(lobby: Service, database_url: str) -> Player:
    who = await registered(lobby.url, "org")
    done = role(database_url, "organizer", "grant", who.name)
    assert done.returncode == 0, done.stderr
    return await signed_in_again(who)


def body(**extra: Any) -> dict[str, Any]:
    """A single elimination open for registration now, starting in an hour."""
    now = int(time.time() * 1000)
    return {"name": "Friday cup", "format": {"kind": "single_elimination"},
            "registration_opens_at": now - MINUTE, "registration_closes_at": now + 50 * MINUTE,
            "starts_at": now + 60 * MINUTE, "min_teams": 4, "max_teams": 8, **extra}


async def test_an_organizer_creates_a_tournament_and_a_player_may_not(
        lobby: Service, tournaments: Service, database_url: str) -> None:
    org = await organizer(lobby, database_url)
    created = await org.ok("POST", "/v1/tournaments", body())
    assert created["events"] == ["TournamentCreated"] and created["version"] == 1
    shown = await org.ok("GET", f"/v1/tournaments/{created['tournament_id']}")
    assert shown["summary"]["organizer"] == org.player_id
    assert shown["summary"]["status"] == "registering"
    # The rules were resolved from the default preset with its overrides, as a table's are.
    assert shown["settings"]["rules"]["preset"] == "quick"
    assert shown["settings"]["rules"]["abandon"] == "forfeit"

    player = await registered(lobby.url)
    guest = await Player.guest(lobby.url, "Gus")
    for who in (player, guest):
        status, err = await who.call("POST", "/v1/tournaments", body())
        assert (status, err["code"]) == (403, "organizers_only")


async def test_a_granted_organizer_organizes_once_signed_in_again(
        lobby: Service, tournaments: Service, database_url: str) -> None:
    """The role travels in the token (docs/operators.md): the token from before the grant
    still says player."""
    who = await registered(lobby.url, "org")
    done = role(database_url, "organizer", "grant", who.name)
    assert done.stdout.strip() == f"{who.name} is an organizer; sign in again to use it"
    status, err = await who.call("POST", "/v1/tournaments", body())  # the token from before
    assert (status, err["code"]) == (403, "organizers_only")
    r = await who.http.post("/v1/auth/login", json={"name": who.name, "password": PASSWORD})
    assert r.json()["role"] == "organizer"
    await signed_in_again(who)
    created = await who.ok("POST", "/v1/tournaments", body())
    assert created["events"] == ["TournamentCreated"]


async def test_revoking_the_organizer_role_takes_effect_at_once(
        lobby: Service, tournaments: Service, database_url: str) -> None:
    org = await organizer(lobby, database_url)
    done = role(database_url, "organizer", "revoke", org.name)
    assert done.returncode == 0 and "no longer an organizer" in done.stdout, done
    status, err = await org.call("POST", "/v1/tournaments", body())  # the old token
    assert (status, err["code"]) == (403, "organizers_only")


async def test_a_revoked_organizer_may_no_longer_act_on_their_own_tournaments(
        lobby: Service, tournaments: Service, database_url: str) -> None:
    org = await organizer(lobby, database_url)
    tid = (await org.ok("POST", "/v1/tournaments", body()))["tournament_id"]
    ada, ben = await registered(lobby.url), await registered(lobby.url)
    team = (await ada.ok("POST", f"/v1/tournaments/{tid}/teams",
                         {"partner": ben.player_id, "name": "Aces"}))["team_id"]
    assert role(database_url, "organizer", "revoke", org.name).returncode == 0
    before = await ada.ok("GET", f"/v1/tournaments/{tid}")
    actions: list[tuple[str, str, Any]] = [
        ("PATCH", f"/v1/tournaments/{tid}", body(name="Still mine")),
        ("POST", f"/v1/tournaments/{tid}/cancel", None),
        ("POST", f"/v1/tournaments/{tid}/start", None),
        ("POST", f"/v1/tournaments/{tid}/teams/{team}/disqualify", {"why": "spite"}),
        ("POST", f"/v1/tournaments/{tid}/bots", {"name": "Robots"}),
        ("POST", f"/v1/tournaments/{tid}/seeds", {"order": [team]}),
        ("POST", f"/v1/tournaments/{tid}/rounds/1/pairings", {"pairs": []}),
        ("POST", f"/v1/tournaments/{tid}/waive-ban", {"player": ada.player_id}),
        ("POST", f"/v1/tournaments/{tid}/matches/W1-1/override",
         {"outcome": "home", "why": "x"}),
    ]
    for token in ("the old token", "a new token"):
        for method, path, data in actions:
            status, err = await org.call(method, path, data)
            assert (status, err["code"]) == (403, "organizers_only"), (token, path, err)
        await signed_in_again(org)
    assert await ada.ok("GET", f"/v1/tournaments/{tid}") == before
    # Someone who never organized it is still told it is not theirs.
    status, err = await ada.call("POST", f"/v1/tournaments/{tid}/cancel")
    assert (status, err["code"]) == (403, "not_organizer")


async def test_operators_may_organize_and_keep_their_role(
        lobby: Service, tournaments: Service, database_url: str) -> None:
    op = await registered(lobby.url, "op")
    assert role(database_url, "operator", "grant", op.name).returncode == 0
    granted = role(database_url, "organizer", "grant", op.name)
    assert granted.returncode == 0 and "operator" in granted.stdout
    revoked = role(database_url, "organizer", "revoke", op.name)
    assert revoked.returncode == 0 and "nothing changed" in revoked.stdout
    await signed_in_again(op)
    created = await op.ok("POST", "/v1/tournaments", body())
    assert created["events"] == ["TournamentCreated"]
    tid = created["tournament_id"]
    changed = await op.ok("PATCH", f"/v1/tournaments/{tid}", body(name="Operators' cup"))
    assert changed["events"] == ["SettingsChanged"]
    assert (await op.ok("POST", f"/v1/tournaments/{tid}/cancel"))["events"] == [
        "TournamentCancelled"]


def test_an_unknown_name_is_one_line_and_exit_status_1(database_url: str,
                                                        lobby: Service) -> None:
    done = role(database_url, "organizer", "grant", "nobody-by-this-name")
    assert done.returncode == 1
    assert done.stderr.strip().count("\n") == 0 and "Traceback" not in done.stderr


async def test_a_team_registers_its_partner_confirms_and_both_check_in(
        lobby: Service, tournaments: Service, database_url: str) -> None:
    org = await organizer(lobby, database_url)
    now = int(time.time() * 1000)
    # Check-in opens with registration: the start is within the check-in minutes.
    tid = (await org.ok("POST", "/v1/tournaments", body(
        registration_closes_at=now + 5 * MINUTE, starts_at=now + 10 * MINUTE,
        check_in_minutes=10, registration_opens_at=now - MINUTE)))["tournament_id"]
    ada, ben, cy = [await registered(lobby.url) for _ in range(3)]
    made = await ada.ok("POST", f"/v1/tournaments/{tid}/teams",
                        {"partner": ben.player_id, "name": "Aces"})
    team = made["team_id"]
    assert made["events"] == ["TeamRegistered"]
    status, err = await cy.call("POST", f"/v1/tournaments/{tid}/teams/{team}/confirm")
    assert (status, err["code"]) == (403, "not_partner")
    status, err = await ada.call("POST", f"/v1/tournaments/{tid}/check-in")
    assert (status, err["code"]) == (409, "not_confirmed")
    assert (await ben.ok("POST", f"/v1/tournaments/{tid}/teams/{team}/confirm"))[
        "events"] == ["TeamConfirmed"]
    for who in (ada, ben):
        await who.ok("POST", f"/v1/tournaments/{tid}/check-in")
    view = await cy.ok("GET", f"/v1/tournaments/{tid}")
    record = await cy.ok("GET", f"/v1/tournaments/{tid}/events")
    assert record["version"] == view["version"] == 5
    assert [(e["version"], e["event"]["type"]) for e in record["events"]] == [
        (1, "TournamentCreated"), (2, "TeamRegistered"), (3, "TeamConfirmed"),
        (4, "TeamCheckedIn"), (5, "TeamCheckedIn")]
    later = await cy.ok("GET", f"/v1/tournaments/{tid}/events?after=3&limit=1")
    assert [e["version"] for e in later["events"]] == [4]
    (t,) = view["teams"]
    assert t["team_id"] == team and t["players"] == [ada.player_id, ben.player_id]
    assert t["confirmed"] and sorted(t["checked_in"]) == sorted([ada.player_id, ben.player_id])
    # The lobby names the people it knows: the organizer and both partners.
    assert view["names"] == {org.player_id: org.name, ada.player_id: ada.name,
                             ben.player_id: ben.name}
    listed = await cy.ok("GET", "/v1/tournaments?status=registering&limit=500")
    assert tid in [s["tournament_id"] for s in listed["tournaments"]]
    assert (await cy.ok("GET", f"/v1/tournaments/{tid}/bracket"))["rounds"] == []
    assert (await cy.ok("GET", f"/v1/tournaments/{tid}/standings"))["standings"] == []


async def test_a_partner_named_as_typed_is_invited_by_a_note_and_confirms(
        lobby: Service, tournaments: Service, database_url: str) -> None:
    org = await organizer(lobby, database_url)
    tid = (await org.ok("POST", "/v1/tournaments", body()))["tournament_id"]
    ada, ben = await registered(lobby.url), await registered(lobby.url)
    bens = await ben.socket(lobby.ws_url)
    made = await ada.ok("POST", f"/v1/tournaments/{tid}/teams",
                        {"partner_name": ben.name.upper(), "name": "Aces"})
    invite = (await bens.until(lambda f: f["type"] == "note"
                               and f["note"]["kind"] == "tournament_invite"))["note"]
    assert invite == {"kind": "tournament_invite", "tournament_id": tid,
                      "tournament": "Friday cup", "team_id": made["team_id"], "team": "Aces",
                      "player_id": ada.player_id, "name": ada.name}
    confirmed = await ben.ok("POST", f"/v1/tournaments/{tid}/teams/{invite['team_id']}/confirm")
    assert confirmed["events"] == ["TeamConfirmed"]
    (team,) = (await ada.ok("GET", f"/v1/tournaments/{tid}"))["teams"]
    assert team["players"] == [ada.player_id, ben.player_id] and team["confirmed"]
    guest = await Player.guest(lobby.url, "Gwen")
    for data, status, code in (
            ({"partner_name": "nobody by this name", "name": "X"}, 404, "player_not_found"),
            ({"partner_name": guest.name, "name": "X"}, 404, "player_not_found"),
            ({"partner_name": ada.name, "name": "X"}, 400, "self_partner"),
            ({"name": "X"}, 400, "bad_request"),
            ({"partner_name": ben.name, "partner": ben.player_id, "name": "X"}, 400,
             "bad_request")):
        cy = await registered(lobby.url)
        got, err = await (ada if code == "self_partner" else cy).call(
            "POST", f"/v1/tournaments/{tid}/teams", data)
        assert (got, err["code"]) == (status, code), (data, err)
    assert len((await ada.ok("GET", f"/v1/tournaments/{tid}"))["teams"]) == 1
    await bens.close()


async def test_me_says_the_accounts_role_as_it_stands(lobby: Service, database_url: str) -> None:
    org = await organizer(lobby, database_url)
    ada = await registered(lobby.url)
    guest = await Player.guest(lobby.url, "Gwen")
    assert [(await p.ok("GET", "/v1/me"))["role"] for p in (org, ada, guest)] == [
        "organizer", "player", "player"]
    await guest.aclose()
    # Taken away: said at once, whatever the token still claims.
    assert role(database_url, "organizer", "revoke", org.name).returncode == 0
    assert (await org.ok("GET", "/v1/me"))["role"] == "player"


async def test_an_organizer_starts_now_once_enough_teams_are_in(
        lobby: Service, tournaments: Service, database_url: str) -> None:
    org = await organizer(lobby, database_url)
    tid = (await org.ok("POST", "/v1/tournaments", body(min_teams=2)))["tournament_id"]
    await org.ok("POST", f"/v1/tournaments/{tid}/bots", {"name": "Robots"})
    status, err = await org.call("POST", f"/v1/tournaments/{tid}/start")
    assert (status, err["code"]) == (409, "not_enough_teams")
    assert (await org.ok("GET", f"/v1/tournaments/{tid}"))["summary"]["status"] == "registering"
    ada = await registered(lobby.url)
    status, err = await ada.call("POST", f"/v1/tournaments/{tid}/start")
    assert (status, err["code"]) == (403, "not_organizer")
    await org.ok("POST", f"/v1/tournaments/{tid}/bots", {"name": "Droids"})
    planned = (await org.ok("GET", f"/v1/tournaments/{tid}"))["summary"]["starts_at"]
    pressed = int(time.time() * 1000)
    started = await org.ok("POST", f"/v1/tournaments/{tid}/start")
    assert "TournamentStarted" in started["events"]
    view = await org.ok("GET", f"/v1/tournaments/{tid}")
    assert view["summary"]["status"] == "running"
    # It says when it started, not the time it was set for.
    assert planned > pressed + 60_000
    assert pressed - 1000 <= view["summary"]["starts_at"] <= int(time.time() * 1000) + 1000
    assert [r["name"] for r in view["rounds"]] == ["Final"]
    status, err = await org.call("POST", f"/v1/tournaments/{tid}/start")
    assert (status, err["code"]) == (409, "already_started")


async def test_bad_writes_are_typed_errors_and_change_nothing(
        lobby: Service, tournaments: Service, database_url: str) -> None:
    org = await organizer(lobby, database_url)
    tid = (await org.ok("POST", "/v1/tournaments", body()))["tournament_id"]
    ada, ben = await registered(lobby.url), await registered(lobby.url)
    guest = await Player.guest(lobby.url, "Gwen")
    before = await ada.ok("GET", f"/v1/tournaments/{tid}")
    cases: list[tuple[Player, str, str, Any, int, str]] = [
        (org, "POST", "/v1/tournaments", body(format={"kind": "chess"}), 400, ""),
        (org, "POST", "/v1/tournaments", body(min_teams=8, max_teams=4), 400, "max_below_min"),
        (org, "POST", "/v1/tournaments", body(rules="no such preset"), 400, "bad_rules"),
        (org, "POST", "/v1/tournaments", body(check_in_minutes=24 * 60), 400,
         "check_in_outside_window"),
        (ada, "POST", f"/v1/tournaments/{tid}/teams", {"partner": ada.player_id, "name": "Me"},
         400, "self_partner"),
        (ada, "POST", f"/v1/tournaments/{tid}/teams", {"partner": guest.player_id, "name": "G"},
         400, "partner_is_guest"),
        (guest, "POST", f"/v1/tournaments/{tid}/teams", {"partner": ada.player_id, "name": "G"},
         403, "registered_only"),
        (ada, "POST", f"/v1/tournaments/{tid}/teams", {"partner": str(uuid.uuid4()),
                                                       "name": "X"}, 404, "player_not_found"),
        (ada, "POST", f"/v1/tournaments/{tid}/teams", {"partner": ben.player_id}, 400, ""),
        (ada, "POST", f"/v1/tournaments/{tid}/teams", {"partner": ben.player_id, "name": "A",
                                                       "extra": 1}, 400, ""),
        (ada, "POST", f"/v1/tournaments/{tid}/cancel", None, 403, "not_organizer"),
        (ada, "PATCH", f"/v1/tournaments/{tid}", body(name="Mine now"), 403, "not_organizer"),
        (ada, "POST", f"/v1/tournaments/{tid}/teams/nope/disqualify", {"why": "x"}, 403,
         "not_organizer"),
        (org, "POST", f"/v1/tournaments/{tid}/teams/nope/disqualify", {"why": "x"}, 404,
         "no_team"),
        (ada, "POST", f"/v1/tournaments/{tid}/seeds", {"order": []}, 403, "not_organizer"),
        (org, "POST", f"/v1/tournaments/{tid}/seeds", {"order": ["nope"]}, 400, "bad_seeds"),
        (org, "POST", f"/v1/tournaments/{tid}/rounds/1/pairings", {"pairs": []}, 409,
         "not_running"),
        (org, "POST", f"/v1/tournaments/{tid}/rounds/0/pairings", {"pairs": []}, 400, ""),
        (ada, "POST", f"/v1/tournaments/{tid}/waive-ban", {"player": ben.player_id}, 403,
         "not_organizer"),
        (org, "POST", f"/v1/tournaments/{tid}/waive-ban", {"player": "not an id"}, 400, ""),
        (org, "POST", f"/v1/tournaments/{tid}/matches/W1-1/override",
         {"outcome": "home", "why": "x"}, 409, "not_running"),
        (ada, "POST", f"/v1/tournaments/{tid}/check-in", None, 409, "check_in_closed"),
        (ada, "GET", f"/v1/tournaments/{uuid.uuid4()}", None, 404, "no_tournament"),
        (ada, "GET", "/v1/tournaments/not a valid id", None, 400, ""),
        (ada, "GET", "/v1/tournaments?status=paused", None, 400, ""),
    ]
    for who, method, path, data, status, code in cases:
        got, err = await who.call(method, path, data)
        assert got == status, (path, data, got, err)
        assert set(err) == {"code", "message"}, err
        if code:
            assert err["code"] == code, (path, err)
    assert await ada.ok("GET", f"/v1/tournaments/{tid}") == before


async def test_an_organizer_changes_and_cancels_the_tournament(
        lobby: Service, tournaments: Service, database_url: str) -> None:
    org = await organizer(lobby, database_url)
    tid = (await org.ok("POST", "/v1/tournaments", body()))["tournament_id"]
    changed = await org.ok("PATCH", f"/v1/tournaments/{tid}", body(name="Saturday cup"))
    assert changed["events"] == ["SettingsChanged"]
    assert (await org.ok("GET", f"/v1/tournaments/{tid}"))["summary"]["name"] == "Saturday cup"
    assert (await org.ok("POST", f"/v1/tournaments/{tid}/cancel"))["events"] == [
        "TournamentCancelled"]
    status, err = await org.call("POST", f"/v1/tournaments/{tid}/cancel")
    assert (status, err["code"]) == (409, "tournament_over")


async def test_a_watcher_gets_the_view_then_each_event_as_it_is_recorded(
        lobby: Service, tournaments: Service, database_url: str) -> None:
    org = await organizer(lobby, database_url)
    tid = (await org.ok("POST", "/v1/tournaments", body()))["tournament_id"]
    ada, ben = await registered(lobby.url), await registered(lobby.url)
    sock = await ben.socket(lobby.ws_url)
    await sock.send({"type": "watch_tournament", "tournament_id": tid})
    first = await sock.of_type("tournament")
    assert first["view"]["summary"]["tournament_id"] == tid and first["version"] == 1
    assert first["event"] is None
    team = (await ada.ok("POST", f"/v1/tournaments/{tid}/teams",
                         {"partner": ben.player_id, "name": "Aces"}))["team_id"]
    frame = await sock.of_type("tournament")
    assert frame["version"] == 2 and frame["view"] is None
    assert frame["event"]["type"] == "TeamRegistered" and frame["event"]["team_id"] == team
    await sock.send({"type": "watch_tournament", "tournament_id": tid, "on": False})
    await sock.send({"type": "ping", "nonce": "after"})
    await sock.until(lambda f: f["type"] == "pong")
    await ben.ok("POST", f"/v1/tournaments/{tid}/teams/{team}/confirm")
    await sock.send({"type": "ping", "nonce": "later"})
    await sock.until(lambda f: f.get("nonce") == "later")
    assert not any(f["type"] == "tournament" and f["version"] == 3 for f in sock.frames)
    await sock.send({"type": "watch_tournament", "tournament_id": str(uuid.uuid4())})
    err = await sock.of_type("error")
    assert err["code"] == "no_tournament"
    await sock.close()


class Losing(Broadcasts):
    """The gateway's bus with an injected fault: the live subscription loses the events of
    the versions in ``lose`` (as a publish that never reached it would)."""

    def __init__(self, nc: Client, names: Names, lose: set[int]) -> None:
        super().__init__(BusClient(nc), names)
        self.lose, self.lost = lose, list[int]()

    async def listen(self, subject: str, kind: type[Any],
                     handler: Callable[[Any], Awaitable[None]]) -> Any:
        async def lossy(env: EventEnvelope) -> None:
            if env.version in self.lose:
                self.lost.append(env.version)
                return
            await handler(env)
        return await super().listen(subject, kind, lossy)


async def test_an_event_the_live_subscription_lost_is_filled_from_the_store(
        lobby: Service, tournaments: Service, database_url: str, nc: Client,
        lobby_prefix: str) -> None:
    org = await organizer(lobby, database_url)
    tid = (await org.ok("POST", "/v1/tournaments", body()))["tournament_id"]
    names = Names(lobby_prefix)
    games = Losing(nc, names, lose={3})
    pool = await create_pool(database_url, "lobby")
    conns = Connections(LobbySettings(database_url="", nats_url=""))
    bus = BusClient(nc)
    feed = TournamentFeed(Tournaments(pool, TournamentBus(bus, names, 5.0),
                                      RatingsBus(bus, names, 5.0), Broadcasts(bus, names)),
                          games, names, conns)
    await feed.start()
    try:
        conn = conns.open(Claims("watcher", "Watcher", False, 0))
        await feed.on_watch(conn, ws.WatchTournament(tournament_id=tid))
        ada, ben, cy, di = [await registered(lobby.url) for _ in range(4)]
        for a, b in ((ada, ben), (cy, di)):  # versions 2 to 5; 3 is lost on the way
            team = (await a.ok("POST", f"/v1/tournaments/{tid}/teams",
                               {"partner": b.player_id, "name": a.name[:20]}))["team_id"]
            await b.ok("POST", f"/v1/tournaments/{tid}/teams/{team}/confirm")
        frames: list[dict[str, Any]] = []

        async def all_in() -> bool:
            while not conn.outbox.empty():
                raw = conn.outbox.get_nowait()
                assert raw is not None
                frames.append(msgspec.json.decode(raw))
            return any(f.get("version") == 5 for f in frames)
        await until(all_in)
    finally:
        await feed.stop()
        await pool.close()
    assert games.lost == [3]
    sent = [(f["version"], f["event"]["type"] if f["event"] else "view")
            for f in frames if f["type"] == "tournament"]
    assert sent == [(1, "view"), (2, "TeamRegistered"), (3, "TeamConfirmed"),
                    (4, "TeamRegistered"), (5, "TeamConfirmed")]
