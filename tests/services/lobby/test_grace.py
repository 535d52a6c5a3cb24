"""A grace period's leave, sent again on the codes that ask for it and no others.

The game side is a stand-in that answers each send with an injected fault (or
accepts it), so the retry policy is seen alone: its tries, its stop, its id.
"""

from __future__ import annotations

import asyncio
from typing import Any, cast

from engine.state import GameState
from schemas import commands as cmd
from services.lobby.base.errors import LobbyError
from services.lobby.edge.commands import Commands
from services.lobby.edge.following import Hub
from services.lobby.edge.grace import Grace


class _Faulty:
    """Raises the queued error codes in turn, then accepts."""

    def __init__(self, *codes: str) -> None:
        self.codes, self.sent = list(codes), []  # type: ignore[var-annotated]

    async def send(self, player_id: str, game_id: str, command_id: str,
                   command: cmd.Command) -> tuple[int, bool]:
        self.sent.append((command_id, command))
        if self.codes:
            raise LobbyError(self.codes.pop(0), "injected")
        return 1, False


class _Hub:
    game_id, state = "g1", GameState()

    def seat_watched(self, seat: int) -> bool:
        return False


async def _expire(*codes: str) -> list[Any]:
    commands = _Faulty(*codes)
    grace = Grace(cast(Commands, commands), seconds=0)
    grace.start(cast(Hub, _Hub()), 2, "p1")
    await asyncio.gather(*grace.running.values())
    return commands.sent


async def test_a_transient_refusal_is_sent_again_with_the_same_id() -> None:
    sent = await _expire("game_unavailable", "busy")
    assert len(sent) == 3 and len({cid for cid, _ in sent}) == 1
    assert all(isinstance(c, cmd.LeaveSeat) and c.seat == 2 for _, c in sent)


async def test_a_refusal_by_the_rules_is_not_sent_again() -> None:
    assert len(await _expire("not_your_turn")) == 1


async def test_six_tries_at_most() -> None:
    assert len(await _expire(*["game_unavailable"] * 10)) == 6
