"""The whole truth of a game, read from the game's stored events, to judge what clients saw.

Only tests read another service's tables: here, to know every hand and secret bid
a client must never have been sent.
"""

from __future__ import annotations

import json
import re
from typing import Any

import asyncpg

from engine.cards import codes
from engine.evolve import evolve
from engine.state import GameState
from schemas.events import CardPlayed, GameEnded, GameStarted
from services.platform.events import game_registry

CARD = re.compile(r'"((?:[2-9TJQKA][SHDC])|BJ|LJ)"')
_registry = game_registry()


async def stored_states(database_url: str, game_id: str) -> list[GameState]:
    """``states[v]`` is the game's full state after version ``v``."""
    states = [GameState()]
    for event in await stored_events(database_url, game_id):
        states.append(evolve(states[-1], event))
    return states


async def stored_events(database_url: str, game_id: str) -> list[Any]:
    conn = await asyncpg.connect(database_url)
    try:
        rows = await conn.fetch("SELECT type, schema_version, body FROM game.events"
                                " WHERE stream = $1 ORDER BY version", game_id)
    finally:
        await conn.close()
    return [_registry.decode(r["type"], r["schema_version"], r["body"]) for r in rows]


def leaks(frames: list[dict[str, Any]], seat: int | None, states: list[GameState],
          events: list[Any]) -> list[str]:
    """Every way the frames a socket got show what ``seat`` may not know."""
    problems: list[str] = []
    started = next(e for e in events if isinstance(e, GameStarted))
    seed = started.seed
    # A sealed seed (a duplicate round's) is never shown, not even after the end.
    ended_at = None if started.sealed else next(
        (i + 1 for i, e in enumerate(events) if isinstance(e, GameEnded)), None)
    played_by_version: list[set[str]] = [set()]
    for e in events:
        played_by_version.append(played_by_version[-1] | (
            {e.card} if isinstance(e, CardPlayed) else set()))
    for f in frames:
        if f["type"] not in ("snapshot", "event"):
            continue
        v = f["version"]
        state = states[v]
        text = json.dumps(f)
        allowed = set(played_by_version[v]) | set(codes(_mask(state.last_trick)))
        if seat is not None:
            allowed |= set(codes(state.dealt[seat])) | set(codes(state.hands[seat]))
        shown = set(CARD.findall(text))
        if shown - allowed:
            problems.append(f"v{v} {f['type']} shows {sorted(shown - allowed)} to seat {seat}")
        if seed and seed in text and (ended_at is None or v < ended_at):
            problems.append(f"v{v} {f['type']} carries the seed before the end"
                            if ended_at is not None or not started.sealed
                            else f"v{v} {f['type']} carries the sealed seed")
        if state.rules is not None and state.rules.bidding == "simultaneous" \
                and not state.revealed:
            if f["type"] == "event" and f["event"]["type"] == "BidPlaced" \
                    and f["event"]["seat"] != seat and f["event"]["bid"] != -1:
                problems.append(f"v{v} shows seat {f['event']['seat']}'s secret bid")
            if f["type"] == "snapshot" and any(
                    b is not None for i, b in enumerate(f["view"]["bids"]) if i != seat):
                problems.append(f"v{v} snapshot shows a secret bid")
    return problems


def _mask(cards: tuple[int, ...]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m
