"""The gateway's fan-out: a followed game's events into every subscriber's frame.

What a gateway does per event of a game it follows (``services.lobby.edge.following``):
fold the event into the game's state, keep it in the bounded history, and send
each socket the event as its seat may see it with its turn (its legal moves).
Measured with no network: whole ``quick`` games played by the basic bot, each
fed event by event to a hub with the four seats and one spectator subscribed,
and the process CPU divided by the events. Figures are printed, not asserted.

    python -m tests.bench.gateway_bench [--games 40]
"""

from __future__ import annotations

import argparse
import asyncio
import time
from typing import Any

from engine.presets import QUICK
from schemas.events import Event
from services.lobby.accounts.auth import Claims
from services.lobby.base.settings import LobbySettings
from services.lobby.edge.connections import Conn
from services.lobby.edge.following import Hub, Sub
from services.platform.events import game_registry
from tests.engine.helpers import bot_game

SEATS: tuple[int | None, ...] = (0, 1, 2, 3, None)


class _Host:
    """The little of a gateway a hub asks for while it fans out."""

    def __init__(self) -> None:
        self.settings = LobbySettings(database_url="", nats_url="", ws_outbox_frames=100_000)
        self.registry = game_registry()

    async def idle(self, hub: Hub) -> None:
        return None


async def fan_out(games: list[list[Event]]) -> tuple[float, int, int]:
    """CPU seconds, events and frames for feeding every game to a hub of five sockets."""
    host: Any = _Host()
    events = frames = 0
    cpu = 0.0
    for game in games:
        hub = Hub(host, "g", None, host.idle)
        conns = []
        for seat in SEATS:
            conn = Conn(Claims(f"p{seat}", "p", False, 0), host.settings)
            hub.subs.add(Sub(conn, hub, seat))
            conns.append(conn)
        t0 = time.process_time()
        for version, event in enumerate(game, 1):
            hub.order.take(version, event)
        cpu += time.process_time() - t0
        events += len(game)
        frames += sum(c.outbox.qsize() for c in conns)
        await asyncio.sleep(0)  # let the game-over task run
    return cpu, events, frames


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=40)
    args = parser.parse_args(argv or [])
    games = [bot_game(QUICK, i) for i in range(args.games)]
    best = min((asyncio.run(fan_out(games)) for _ in range(3)), key=lambda r: r[0])
    cpu, events, frames = best
    print(f"gateway fan-out, {args.games} quick games, 4 seats + 1 spectator: "
          f"{cpu / events * 1e6:7.1f} us CPU per event, {frames / events:4.2f} frames per "
          f"event, {cpu / frames * 1e6:6.1f} us per frame (best of 3)")


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
