"""Logs never carry a token, a hand or a seed: every service's log of full games, scanned."""

from __future__ import annotations

from schemas.events import GameStarted, HandDealt
from services import catalog
from tests.e2e.conftest import Platform
from tests.e2e.players import play_until_over, two_and_bots
from tests.e2e.truth import CARD, stored_events
from tests.services.lobby.harness import SECRET


async def test_the_logs_of_a_full_game_hold_no_token_hand_or_seed(platform: Platform,
                                                                  database_url: str) -> None:
    ada, bob, t, seats = await two_and_bots(platform, ("Ada", "Bob"), "quick", "expert")
    await seats[1].sock.send({"type": "chat", "game_id": t["game_id"], "text": "hello"})
    await play_until_over(seats)
    for s in seats:
        await s.sock.close()
    events = await stored_events(database_url, t["game_id"])
    seed = next(e.seed for e in events if isinstance(e, GameStarted))
    hands = [h for e in events if isinstance(e, HandDealt) for h in e.hands]
    assert seed and len(hands) == 16

    secrets = [ada.token, bob.token, SECRET, seed]
    logs = sorted(platform.logs.glob("*.log"))
    # The lobbies' and game workers' logs, and those of any service another test of
    # this platform started beside them.
    assert {"lobby", "game"} <= {p.stem.split("-")[0] for p in logs} <= set(catalog.SERVICES)
    lines = [line for p in logs for line in p.read_text().splitlines()]
    assert len(lines) > 20
    for line in lines:
        assert not any(s in line for s in secrets), line[:200]
        assert len(set(CARD.findall(line))) <= 1, line[:200]  # never a hand, or part of one
    await ada.aclose()
    await bob.aclose()
