"""Duplicate deals on the whole platform: games opened with one deal seed deal the same
cards seat by seat, and the seed stays out of everything a player or a spectator
receives, even once the game is over (other tables may still be playing the deals);
only the store keeps it, for operators. A duplicate tournament commits to each round's
seed when it pairs the round and reveals it in its own event after the round's last
result, with each table's score per deal and every team's matchpoints; the record never
carries a match's result."""

from __future__ import annotations

import hashlib
import json
import secrets
import uuid
from collections import defaultdict
from typing import Any

import asyncpg
import msgspec
import pytest
from nats.aio.client import Client

from schemas import events as gev
from schemas.matches import MatchSeat, OpenMatch
from schemas.tournaments import events as ev
from services.platform.eventstore import EventStore
from services.tournaments.store import TournamentStore, registry
from tests.e2e.conftest import Platform
from tests.e2e.players import Seat, play_until_over
from tests.e2e.replays import registered
from tests.e2e.test_matches import BOTS, count, open_match
from tests.e2e.test_tournament_run import (
    bot_tournament,
    copy,
    tournaments_pool,  # noqa: F401 (fixture)
)
from tests.e2e.truth import leaks, stored_events, stored_states
from tests.services.lobby.test_tournaments import organizer
from tests.waiting import until

TWO_HANDS = {"preset": "classic", "target": None, "max_hands": 2}


def deals_of(events: list[gev.Event]) -> dict[int, tuple[int, tuple[tuple[str, ...], ...]]]:
    """hand number -> (dealer, each seat's cards)."""
    return {e.hand_no: (e.dealer, e.hands) for e in events if isinstance(e, gev.HandDealt)}


async def test_tables_dealt_from_one_seed_hold_the_same_cards_and_never_show_the_seed(
        platform: Platform, nc: Client, nats_prefix: str, database_url: str) -> None:
    seed = secrets.token_hex(32)
    tag = uuid.uuid4().hex[:8]
    person = await registered(platform.a.url, f"dup{tag}")
    seats = (MatchSeat(player_id=person.player_id), *BOTS[1:])
    games = []
    for i, table_seats in enumerate((seats, BOTS)):
        opened = await open_match(nc, f"{nats_prefix}e2e", OpenMatch(
            match_id=f"dup-{tag}-{i}", seats=table_seats, rules=TWO_HANDS,
            origin="tournament", origin_id="test", deal_seed=seed))
        games.append(opened.game_id)
    seat = Seat(person, await person.socket(platform.a.ws_url), games[0])
    await seat.subscribe()
    await play_until_over([seat])
    # Back after the end: the snapshot of a finished game does not show it either.
    again = Seat(person, await person.socket(platform.b.ws_url), games[0])
    await again.subscribe(since=0)
    assert again.view is not None and again.view["phase"] == "over"
    assert again.view["seed"] is None

    async def both_ended() -> list[list[gev.Event]] | None:
        logs = [await stored_events(database_url, g) for g in games]
        return logs if all(isinstance(log[-1], gev.GameEnded) for log in logs) else None

    logs = await until(both_ended, timeout=60)
    first, second = deals_of(logs[0]), deals_of(logs[1])
    assert len(first) >= 1
    for hand_no in first.keys() & second.keys():  # a hand both tables played: same cards
        assert first[hand_no] == second[hand_no]
    for log in logs:
        started, ended = log[0], log[-1]
        assert isinstance(started, gev.GameStarted) and isinstance(ended, gev.GameEnded)
        assert started.sealed and ended.sealed
        assert started.seed_hash == hashlib.sha256(bytes.fromhex(seed)).hexdigest()
        assert ended.seed == seed  # kept for operators' replay
        assert len(ended.deals) == ended.hands_played
    frames = json.dumps([*seat.sock.frames, *again.sock.frames])
    assert '"GameEnded"' in frames and seed not in frames
    states = await stored_states(database_url, games[0])
    for s in (seat, again):
        assert leaks(s.sock.frames, 0, states, logs[0]) == []
    for s in (seat, again):
        await s.sock.close()
    await person.aclose()


async def test_a_game_without_a_supplied_seed_reveals_its_own_at_the_end(
        platform: Platform, nc: Client, nats_prefix: str, database_url: str) -> None:
    """The check above can fail: an ordinary game's end does carry its seed to players."""
    person = await registered(platform.a.url, f"own{uuid.uuid4().hex[:8]}")
    opened = await open_match(nc, f"{nats_prefix}e2e", OpenMatch(
        match_id=f"own-{uuid.uuid4().hex[:8]}", rules=TWO_HANDS, origin="queue",
        seats=(MatchSeat(player_id=person.player_id), *BOTS[1:])))
    seat = Seat(person, await person.socket(platform.a.ws_url), opened.game_id)
    await seat.subscribe()
    await play_until_over([seat])
    ended = (await stored_events(database_url, opened.game_id))[-1]
    assert isinstance(ended, gev.GameEnded) and not ended.sealed and ended.seed
    assert ended.seed in json.dumps(seat.sock.frames)
    await seat.sock.close()
    await person.aclose()


async def test_a_malformed_deal_seed_is_refused_before_anything_is_opened(
        platform: Platform, nc: Client, nats_prefix: str, database_url: str) -> None:
    from services.platform import bus

    match_id = f"bad-{uuid.uuid4().hex[:8]}"
    for bad in ("xyz", "ab" * 8 + "a", "AB" * 16):
        with pytest.raises((bus.RemoteError, msgspec.ValidationError)):
            await open_match(nc, f"{nats_prefix}e2e", msgspec.structs.replace(OpenMatch(
                match_id=match_id, seats=BOTS, origin="queue"), deal_seed=bad))
    assert await count(database_url, "SELECT count(*) FROM lobby.matches WHERE match_id = $1",
                       match_id) == 0


async def test_a_duplicate_swiss_round_deals_every_table_alike_and_reveals_its_seed_after(
        platform: Platform, platform_env: dict[str, str], database_url: str,
        tournaments_pool: asyncpg.Pool) -> None:  # noqa: F811
    scheduler = copy(platform, platform_env, "duplicate")
    try:
        org = await organizer(platform.a, database_url)
        tid, view = await bot_tournament(
            org, {"kind": "swiss", "rounds": 2, "deals": "duplicate"}, 4,
            {"preset": "quick", "max_hands": 2, "abandon": "forfeit"})
        shown = (await org.ok("GET", f"/v1/tournaments/{tid}/events"))["events"]
    finally:
        scheduler.stop()

    store = TournamentStore(tournaments_pool, EventStore(tournaments_pool, registry()))
    kept = [r.event for r in await store.events.read(f"tournament-{tid}")]
    paired = {e.round_no: e for e in kept if isinstance(e, ev.RoundPaired)}
    completed = {e.round_no: e for e in kept if isinstance(e, ev.RoundCompleted)}
    assert sorted(paired) == sorted(completed) == [1, 2]
    results = {e.match_id: e for e in kept if isinstance(e, ev.MatchResult)}
    for n, round_paired in paired.items():
        seed = completed[n].deal_seed
        assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() == round_paired.deal_seed_hash
        logs = [await stored_events(database_url, results[p.match_id].game_stream)
                for p in round_paired.pairings]
        assert len(logs) == 2
        for log in logs:
            assert isinstance(log[0], gev.GameStarted) and log[0].sealed
            assert log[0].seed_hash == round_paired.deal_seed_hash
        first, second = deals_of(logs[0]), deals_of(logs[1])
        assert first[1] == second[1]  # the home team holds the same cards at both tables
        for p in round_paired.pairings:
            assert len(results[p.match_id].deals) >= 1

    # What anyone may read: the commitment while the round runs, the seed only in the
    # event that ends the round.
    by_type: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in shown:
        by_type[r["event"]["type"] if r["event"] else "withheld"].append(r["event"])
    assert [e["deal_seed"] for e in by_type["RoundPaired"]] == ["", ""]
    assert all(e["deal_seed_hash"] for e in by_type["RoundPaired"])
    assert sorted(e["deal_seed"] for e in by_type["RoundCompleted"]) == sorted(
        completed[n].deal_seed for n in (1, 2))
    # A match's result is never in the record of a duplicate tournament: the view has it.
    assert by_type["MatchResult"] == [] and len(by_type["withheld"]) == len(results)
    # The record shows each table's score per deal and every team's matchpoints.
    assert all(m["deals"] for m in view["matches"])
    dup = [s["duplicate"] for s in view["standings"]]
    assert all(d is not None for d in dup)
    # Two tables a deal: each direction's pair of results shares one matchpoint per deal.
    assert sum(d["matchpoints"] for d in dup) == sum(d["top"] for d in dup) / 2
