"""Prometheus metrics of the game workers, served on the service's ``/metrics``."""

from __future__ import annotations

import functools

from prometheus_client import Counter, Gauge, Histogram

COMMANDS = Counter(
    "spades_game_commands_total",
    "Game commands handled, by who sent them, the outcome and the command's kind",
    ["origin", "result", "kind"])
LATENCY = Histogram(
    "spades_game_command_seconds",
    "Time from a command's arrival at its game to its answer, by origin and kind",
    ["origin", "kind"],
    buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5))


@functools.cache
def commands(origin: str, result: str, kind: str) -> Counter:
    """The count of one origin's commands of one outcome and kind (the labelled child,
    found once); ``kind`` is the command's type (``PlayCard``, ``PlaceBid``...)."""
    return COMMANDS.labels(origin, result, kind)


@functools.cache
def latency(origin: str, kind: str) -> Histogram:
    """The latency of one origin's commands of one kind (the labelled child, found once)."""
    return LATENCY.labels(origin, kind)


LIVE_GAMES = Gauge("spades_game_live_games", "Games this worker runs now")
ADOPTIONS = Counter("spades_game_adoptions_total",
                    "Games this worker took over from another (dead, paused or leaving)")
LOST = Counter("spades_game_lost_total",
               "Games this worker gave up because another adopted them", ["how"])
BOT_LINES = Counter("spades_game_bot_lines_total", "Lines of table talk said by bots")
