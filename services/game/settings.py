"""The game service's settings: one declaration, read by the runtime from the
environment and by the workers and their games as they run."""

from __future__ import annotations

from typing import Annotated

import msgspec

from services.platform.settings import Settings, env_name

SHARD_DATABASE_URLS = env_name("shard_database_urls")


class GameSettings(Settings, frozen=True, kw_only=True):
    http_port: Annotated[int, msgspec.Meta(
        ge=0, le=65535, description="Port of the HTTP server (health, metrics).")] = 8001
    outbox_batch: Annotated[int, msgspec.Meta(
        ge=1, description="Events the outbox relay publishes per transaction.")] = 256
    outbox_poll_seconds: Annotated[float, msgspec.Meta(
        gt=0, description="Longest pause of the outbox relay between sweeps for events "
                          "no writer published, and between deletes of the rows of "
                          "events writers did publish.")] = 0.2
    outbox_sweep_seconds: Annotated[float, msgspec.Meta(
        gt=0, description="Age at which the outbox relay publishes an event still queued: "
                          "its writer died between the commit and its own publish, or "
                          "that publish failed.")] = 1.0
    shard_database_urls: Annotated[str, msgspec.Meta(
        description="Further Postgres databases new games are spread over by game id, "
                    "comma-separated (each migrated like the service's own); empty: the "
                    "service's own database holds every game. A game stays in the "
                    "database it was created in, so one may be added to a running "
                    "deployment (restart the workers naming it). Every copy names the "
                    "same ones in the same order.")] = ""
    lease_seconds: Annotated[float, msgspec.Meta(
        gt=0, description="How long a worker's hold on a game lasts without renewal; a "
                          "dead worker's games are adopted this long after its last "
                          "heartbeat.")] = 5.0
    heartbeat_seconds: Annotated[float, msgspec.Meta(
        gt=0, description="How often a worker renews its leases and looks for games "
                          "to adopt; well under the lease.")] = 1.0
    group_commit_ms: Annotated[float, msgspec.Meta(
        ge=0, description="How long a worker gathers its games' commands before it "
                          "appends them in one transaction, in milliseconds (0: only "
                          "those that arrived while the last batch was written).")] = 2.0
    group_commit_most: Annotated[int, msgspec.Meta(
        ge=1, description="Most commands appended in one transaction; a batch this "
                          "full is written at once.")] = 64
    inbox_size: Annotated[int, msgspec.Meta(
        ge=1, description="Commands one game holds waiting; more are refused with "
                          "code busy.")] = 64
    bot_think_ms: Annotated[int, msgspec.Meta(
        ge=0, description="How long a bot seat waits before it bids or plays, in "
                          "milliseconds: 800 by default, about a person's pace, so a "
                          "table can follow the bots' moves; a bot whose clock runs out "
                          "sooner moves then (0 in tests and benchmarks).")] = 800
    adopt_grace_ms: Annotated[int, msgspec.Meta(
        ge=0, description="Least time the seats on turn have after a worker adopts a "
                          "game, in milliseconds: a clock that ran out, or would run out "
                          "sooner, while no worker owned the game expires this long after "
                          "the adoption instead (docs/rules.md, clocks).")] = 5000
    adopt_batch: Annotated[int, msgspec.Meta(
        ge=1, description="Most orphaned games one heartbeat adopts.")] = 256
    linger_seconds: Annotated[float, msgspec.Meta(
        ge=0, description="How long a finished game keeps answering repeated "
                          "commands before its worker forgets it.")] = 30.0
    answers_kept: Annotated[int, msgspec.Meta(
        ge=1, description="Recent answers a game keeps in memory to answer a repeated "
                          "command id without asking the store.")] = 512
    handover_seconds: Annotated[float, msgspec.Meta(
        gt=0, description="On SIGTERM, how long a worker waits for its games to finish "
                          "the command in hand before it lets their leases lapse.")] = 5.0
    retry_seconds: Annotated[float, msgspec.Meta(
        gt=0, description="Pause before a bot's or a clock's move that could not be "
                          "stored (Postgres away) is tried again.")] = 0.5


def game_databases(own: str, shards: str) -> list[str]:
    """Every database games live in: the service's own first, then the further ones in
    the order named, the order ``shards.shard_of`` counts in when it places a new game
    (an existing one is found where its rows are, by every reader of the games)."""
    return [own, *(u.strip() for u in shards.split(",") if u.strip())]
