"""Each feature keeps its own state of each socket, and a closed socket leaves none."""

from __future__ import annotations

from services.lobby.accounts.auth import Claims
from services.lobby.base.settings import LobbySettings
from services.lobby.edge.connections import Connections, PerSocket


async def test_a_closed_socket_is_forgotten_by_every_feature_and_a_late_handler_keeps_nothing(
        ) -> None:
    conns = Connections(LobbySettings(database_url="", nats_url=""))
    ada = conns.open(Claims("ada", "Ada", False, 0))
    ben = conns.open(Claims("ben", "Ben", False, 0))
    games: PerSocket[dict[str, int]] = PerSocket(conns, dict)
    tables: PerSocket[set[str]] = PerSocket(conns, set)
    games.of(ada)["g1"] = 3
    tables.of(ada).add("t1")
    tables.of(ben).add("t1")
    assert games.get(ben) is None  # a feature keeps nothing for a socket that never used it
    assert conns.remove(ada)
    assert games.get(ada) is None and tables.get(ada) is None
    assert [c for c, _ in tables.items()] == [ben]
    games.of(ada)["g2"] = 1  # a handler still running for the closed socket
    assert games.get(ada) is None and not conns.remove(ada)
