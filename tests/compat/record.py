"""Records what a released version of the platform writes, for the compatibility tests.

``python -m tests.compat.record`` checks the release's commit out in a temporary git
worktree, starts its services as processes (a game worker, a lobby, the ratings
service) on embedded PostgreSQL and NATS, plays games through its public API and its
bus, and writes under ``tests/compat/fixtures/<version>/``:

- ``events.jsonl`` and ``tournament_events.jsonl``: every stored event of the game
  workers' and of the tournament service's event store, one row a line, its body the
  stored bytes (base64 msgpack) as that version encoded them;
- ``bus.jsonl``: every message the release's services sent one another on NATS
  (requests, their replies, publications, JetStream's event messages), in order, with
  subject, headers and body (base64). The recorder's own requests are left out.

The games: two people's tables (one person and three bots; the person looks at the
cards or bids blind nil and passes cards, sets and cancels a pre-move, leaves the seat
and takes it back), a person who never moves on short clocks, a table of four bots, a
rated game of four bots on a sealed deal asked of the game workers directly (as the
matchmaker and the tournament service do), and a knockout of two bot teams whose one
match is played. ``tests/compat/test_release_fixtures.py`` reads them with today's code.
Run again after a release to record that release too (``RELEASE`` names it); the run
takes about a minute.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import asyncpg
import msgspec
import nats

from schemas.gamebus import CreateGame, GameReply
from schemas.rules import Rules
from schemas.subjects import Names
from services.platform import servers
from tests.e2e.players import Seat
from tests.services.lobby.harness import ROOT, Player, Service, lobby_env, start

RELEASE = ("0.2.0", "f9e4e72f796004125ab4397ccb45200811b38fb9")
FIXTURES = Path(__file__).resolve().parent / "fixtures"
PREFIX = "compat"
ONE_HAND = {"preset": "classic", "target": None, "max_hands": 1}
DRIVER = "Compat-Driver"  # a header on the driver's own requests, left out of the record


@contextlib.contextmanager
def checkout(commit: str) -> Iterator[Path]:
    """The release's tree in a temporary git worktree (removed after)."""
    where = Path(tempfile.mkdtemp(prefix="spades-release-"))
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(where / "tree"),
                    commit], check=True, capture_output=True)
    try:
        yield where / "tree"
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force",
                        str(where / "tree")], check=False, capture_output=True)
        shutil.rmtree(where, ignore_errors=True)


class Tap:
    """Every message on the NATS server, as it passed (JetStream's API left out)."""

    def __init__(self) -> None:
        self.seen: list[dict[str, Any]] = []

    async def on_msg(self, msg: Any) -> None:
        if msg.subject.startswith("$"):
            return
        self.seen.append({"subject": msg.subject, "reply": msg.reply or "",
                          "headers": dict(msg.headers or {}),
                          "data": base64.b64encode(msg.data).decode()})

    def kept(self) -> list[dict[str, Any]]:
        """The services' messages: a reply kept only when its request was (an inbox
        message answering nothing recorded is a JetStream acknowledgement or the
        driver's)."""
        asked = {m["reply"] for m in self.seen  # a JetStream publication: Nats-Msg-Id
                 if m["reply"] and not m["subject"].startswith("_INBOX")
                 and DRIVER not in m["headers"] and "Nats-Msg-Id" not in m["headers"]}
        out = []
        for m in self.seen:
            if m["subject"].startswith("_INBOX"):
                if m["subject"] in asked:
                    out.append(m)
            elif DRIVER not in m["headers"]:
                out.append(m)
        return out


async def person_game(lobby: Service, blind: bool = False) -> str:
    """One person and three bots. The person looks at the cards when blind nil is offered
    (``blind``: bids it and passes cards to the partner instead), sets and cancels a
    pre-move (and, not ``blind``, locks a spade as the next one each trick), leaves the
    seat and takes it back, and plays to the end."""
    p = await Player.guest(lobby.url, "Blind" if blind else "Ada")
    rules = {**ONE_HAND, "blind_nil": True, "blind_nil_margin": None, "blind_nil_pass": 2}
    t = await p.ok("POST", "/v1/tables", {"rules": rules, "private": True})
    t = await p.ok("POST", f"/v1/tables/{t['table_id']}/start")
    seat = Seat(p, await p.socket(lobby.ws_url), t["game_id"])
    await seat.subscribe()
    did: set[str] = set()
    deadline = time.monotonic() + 60
    while seat.ended is None:
        assert time.monotonic() < deadline, "the person's game did not end"
        await _extra(seat, did, blind)
        if seat.ended is not None:
            break
        try:
            await seat.step()
        except TimeoutError:
            raise AssertionError(f"stuck: {seat.sock.frames[-4:]}") from None
    await seat.sock.close()
    await p.aclose()
    return str(t["game_id"])


async def _extra(seat: Seat, did: set[str], blind: bool) -> None:
    """The moves ``Seat`` does not make by itself, each once."""
    turn = seat.turn or {}
    mine = seat.seat in turn.get("waiting", ())
    if turn.get("blind_nil_offered") and mine and not {"look", "blind"} & did:
        did.add("blind" if blind else "look")
        await _send(seat, {"type": "blind_nil"} if blind else {"type": "look"})
    elif mine and turn.get("pass_count") and "pass" not in did:
        did.add("pass")
        await seat.sock.send({"type": "snapshot", "game_id": seat.game_id})  # the hand now
        while (f := await seat.sock.recv(10))["type"] != "snapshot":
            seat.absorb(f)
        seat.absorb(f)
        await _send(seat, {"type": "pass", "cards": _hand(seat)[:turn["pass_count"]]})
    elif not mine and _playing(seat) and _hand(seat) and "premove" not in did:
        did.add("premove")
        await _send(seat, {"type": "premove", "card": _hand(seat)[-1]})
        await _send(seat, {"type": "cancel_premove"})
    elif not mine and _playing(seat) and "premove" in did and not blind:
        await _spade_premove(seat, did)
    elif mine and turn.get("legal_cards") and "leave" not in did:
        did.add("leave")
        await _send(seat, {"type": "leave"})
        await seat.subscribe()  # back in the seat, while the bot that took it plays


async def _spade_premove(seat: Seat, did: set[str]) -> None:
    """A spade locked as the pre-move, once a trick: when the turn comes it is often not
    playable (spades not broken, or another suit to follow), and is dropped."""
    trick = f"spade-{sum(f['event']['type'] == 'TrickWon' for f in seat.events)}"
    spades = [c for c in _hand(seat) if c.endswith("S")]
    if spades and trick not in did:
        did.add(trick)
        await _send(seat, {"type": "premove", "card": spades[0]})


def _hand(seat: Seat) -> list[str]:
    """The seat's cards: as dealt (or last shown), less those it played since."""
    hand = list((seat.view or {}).get("hand") or [])
    for f in seat.events:
        e = f["event"]
        if e["type"] == "HandDealt" and e["hands"] and seat.seat is not None:
            hand = list(e["hands"][seat.seat] if len(e["hands"]) == 4 else e["hands"][0])
        elif e["type"] == "CardPlayed" and e["seat"] == seat.seat and e["card"] in hand:
            hand.remove(e["card"])
    return hand


def _playing(seat: Seat) -> bool:
    return bool(seat.events) and seat.events[-1].get("phase") == "play"


async def _send(seat: Seat, frame: dict[str, Any]) -> None:
    seat.sent += 1
    await seat.sock.send({**frame, "command_id": f"x{seat.sent}", "game_id": seat.game_id,
                          "seat": seat.seat})


async def idle_game(lobby: Service) -> str:
    """A person who never moves, on short clocks: each turn of theirs spends the time
    bank and then the clock moves for them."""
    p = await Player.guest(lobby.url, "Idle")
    clocks = {"bid_ms": 150, "play_ms": 150, "single_card_ms": 150, "bank_blocks": 1,
              "bank_block_ms": 150}
    t = await p.ok("POST", "/v1/tables", {"rules": {**ONE_HAND, "clocks": clocks},
                                          "private": True})
    t = await p.ok("POST", f"/v1/tables/{t['table_id']}/start")
    seat = Seat(p, await p.socket(lobby.ws_url), t["game_id"])
    await seat.subscribe()
    while seat.ended is None:
        seat.absorb(await seat.sock.recv(30))
    await seat.sock.close()
    await p.aclose()
    return str(t["game_id"])


async def bots_game(lobby: Service) -> str:
    p = await Player.guest(lobby.url, "Host")
    t = await p.ok("POST", "/v1/tables", {"rules": {**ONE_HAND, "max_hands": 2},
                                          "private": True, "seat": None})
    await p.ok("POST", f"/v1/tables/{t['table_id']}/bots", {"level": "expert"})
    t = await p.ok("POST", f"/v1/tables/{t['table_id']}/start")
    await p.aclose()
    return str(t["game_id"])


async def rated_game(nc: Any, names: Names) -> str:
    """A rated game of bots on a sealed deal, asked of the workers as a match is."""
    game_id = uuid.uuid4().hex[:16]
    create = CreateGame(game_id=game_id, command_id="compat-create", rules=Rules(
        preset="classic", target=None, max_hands=1), players=("bot:basic",) * 4,
        bot_levels=("basic",) * 4, rated=True, table_id="", deal_seed="ab" * 16)
    msg = await nc.request(names.game_create, msgspec.msgpack.encode(create), timeout=10,
                           headers={DRIVER: "1"})
    assert msgspec.msgpack.decode(msg.data, type=GameReply).ok, msg.headers
    return game_id


async def tournament(lobby: Service, tree: Path, env: dict[str, str]) -> str:
    """A knockout of two bot teams, started at once: its one match is a game of bots,
    its result the tournament's end."""
    org = await Player.registered(lobby.url, "Organizer", "organizer-password-1")
    subprocess.run([sys.executable, "-m", "services.cli", "organizer", "grant", org.name],
                   cwd=tree, env={**_base_env(tree), **env}, check=True, capture_output=True)
    await org.aclose()
    org = await _signed_in(lobby, org.name)  # again, now with the role
    now = int(time.time() * 1000)
    t = await org.ok("POST", "/v1/tournaments", {
        "name": "Compat cup", "format": {"kind": "single_elimination"},
        "rules": {"preset": "classic", "target": None, "max_hands": 1},
        "registration_opens_at": now - 60_000, "registration_closes_at": now + 3_000_000,
        "starts_at": now + 3_600_000, "min_teams": 2, "max_teams": 4})
    for name in ("Robots", "Droids"):
        await org.ok("POST", f"/v1/tournaments/{t['tournament_id']}/bots",
                     {"name": name, "level": "basic"})
    await org.ok("POST", f"/v1/tournaments/{t['tournament_id']}/start")
    await org.aclose()
    return str(t["tournament_id"])


async def _signed_in(lobby: Service, name: str) -> Player:
    import httpx

    http = httpx.AsyncClient(base_url=lobby.url, timeout=10)
    r = await http.post("/v1/auth/login", json={"name": name,
                                                "password": "organizer-password-1"})
    assert r.status_code == 200, r.text
    body = r.json()
    http.headers["authorization"] = f"Bearer {body['token']}"
    return Player(lobby.url, body["token"], body["player_id"], name, http)


async def finished(pool: asyncpg.Pool, tournament_id: str) -> None:
    deadline = time.monotonic() + 90
    while not await pool.fetchval("SELECT count(*) FROM tournaments.events WHERE stream = $1"
                                  " AND type = 'TournamentFinished'",
                                  f"tournament-{tournament_id}"):
        assert time.monotonic() < deadline, "the tournament did not finish"
        await asyncio.sleep(0.3)


async def wait_ended(pool: asyncpg.Pool, game_ids: list[str]) -> None:
    deadline = time.monotonic() + 90
    while True:
        n = await pool.fetchval("SELECT count(*) FROM game.events WHERE type = 'GameEnded'"
                                " AND stream = ANY($1)", game_ids)
        if n == len(game_ids):
            return
        assert time.monotonic() < deadline, f"{n} of {len(game_ids)} games ended"
        await asyncio.sleep(0.2)


async def dump_events(pool: asyncpg.Pool, schema: str) -> list[dict[str, Any]]:
    """Every stored event of a service's event store (``game``, ``tournaments``)."""
    rows = await pool.fetch("SELECT stream, version, type, schema_version, event_id, "
                            "occurred_at, correlation_id, causation_id, command_id, body "
                            f"FROM {schema}.events ORDER BY stream, version")
    return [{"stream": r["stream"], "version": r["version"], "type": r["type"],
             "schema_version": r["schema_version"], "event_id": str(r["event_id"]),
             "occurred_at_ms": int(r["occurred_at"].timestamp() * 1000),
             "correlation_id": r["correlation_id"], "causation_id": r["causation_id"],
             "command_id": r["command_id"], "body": base64.b64encode(r["body"]).decode()}
            for r in rows]


Rows = list[dict[str, Any]]
STORES = {"game": "events.jsonl", "tournaments": "tournament_events.jsonl"}


async def record(tree: Path, work: Path) -> tuple[dict[str, Rows], Rows]:
    both = servers.embedded(work / "servers")
    both.start()
    started: list[Service] = []
    try:
        admin = await asyncpg.connect(both.postgres.url)
        await admin.execute("CREATE DATABASE compat")
        await admin.close()
        url = both.postgres.url.rsplit("/", 1)[0] + "/compat"
        env = lobby_env(url, both.nats.url, PREFIX, SPADES_BOT_THINK_MS="40")
        subprocess.run([sys.executable, "-m", "services.cli", "migrate"], cwd=tree, check=True,
                       env={**_base_env(tree), **env}, capture_output=True)
        tap, nc = Tap(), await nats.connect(both.nats.url)
        await nc.subscribe(">", cb=tap.on_msg)
        for name in ("game", "ratings", "tournaments", "lobby"):
            started.append(start(name, work / f"{name}.log", None, tree, **env))
        lobby = started[-1]
        games = [await person_game(lobby), await person_game(lobby, blind=True),
                 await idle_game(lobby), await bots_game(lobby),
                 await rated_game(nc, Names(PREFIX))]
        cup = await tournament(lobby, tree, env)
        pool = await asyncpg.create_pool(url, min_size=1, max_size=2)
        await finished(pool, cup)
        await wait_ended(pool, games)
        await asyncio.sleep(2)  # the ratings and the lobby's projections hear the ends
        events = {schema: await dump_events(pool, schema) for schema in STORES}
        await pool.close()
        await nc.flush()
        await nc.close()
        return events, tap.kept()
    finally:
        for svc in reversed(started):
            svc.stop()
        both.stop()


def _base_env(tree: Path) -> dict[str, str]:
    import os

    return {**os.environ, "PYTHONPATH": str(tree)}


def write(version: str, events: dict[str, Rows], bus: Rows) -> Path:
    folder = FIXTURES / version
    folder.mkdir(parents=True, exist_ok=True)
    files = [(STORES[schema], rows) for schema, rows in events.items()]
    for name, rows in [*files, ("bus.jsonl", bus)]:
        (folder / name).write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows))
    return folder


def main() -> None:
    version, commit = RELEASE
    with checkout(commit) as tree:
        said = (tree / "pyproject.toml").read_text()
        assert f'version = "{version}"' in said, f"{commit} is not {version}"
        work = Path(tempfile.mkdtemp(prefix="spades-record-"))
        try:
            events, bus = asyncio.run(record(tree, work))
        finally:
            shutil.rmtree(work, ignore_errors=True)
    folder = write(version, events, bus)
    print(f"{folder}: {len(events['game'])} game events, {len(events['tournaments'])} "
          f"tournament events, {len(bus)} bus messages")


if __name__ == "__main__":
    main()
