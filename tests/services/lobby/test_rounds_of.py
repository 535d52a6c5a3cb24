"""Naming tournament games by their rounds when the tournament service does not answer:
each game is named by its tournament's id alone, and the service is asked once, not once
a tournament (a list of many tournaments' games waits for one timeout, not many)."""

from __future__ import annotations

import uuid
from typing import Any, cast

from schemas.errors.codes import TOURNAMENTS_UNAVAILABLE
from schemas.history import TournamentRound
from schemas.matches import lobby_match_id
from services.lobby.base.errors import LobbyError
from services.lobby.clients.tournaments import TournamentBus
from services.lobby.tournaments.relay import rounds_of


class Unanswered:
    """A tournament bus whose every read times out (an injected fault), counting them."""

    def __init__(self) -> None:
        self.asked = 0

    async def get(self, tournament_id: str) -> Any:
        self.asked += 1
        raise LobbyError(TOURNAMENTS_UNAVAILABLE, "the tournament service did not answer")


async def test_an_unanswering_service_is_asked_once_and_every_game_still_named() -> None:
    bus = Unanswered()
    tids = [str(uuid.uuid4()) for _ in range(3)]
    ids = [lobby_match_id(t, "R1-1") for t in tids]
    got = await rounds_of(cast(TournamentBus, bus), ids)
    assert bus.asked == 1
    assert got == {i: TournamentRound(tournament_id=t, name="", round_no=0)
                   for i, t in zip(ids, tids, strict=True)}
