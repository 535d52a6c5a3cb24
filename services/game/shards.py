"""The games of a worker over several databases, each game whole in one.

A game's row, its lease, its refused commands and its events live in the
database its id hashes to (``services.platform.shards.shard_of``): the lease
is checked inside the append, so it must sit where the stream does, and every
write about one game stays one transaction in one database. What spans games
(renewing a worker's leases, claiming lapsed ones, letting them go) is done
in each database in turn. The worker sees one store with the same methods as
``GameStore``.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from services.game.store import GameRow, GameStore, Refusal
from services.platform.eventstore import AppendResult, RecordedEvent
from services.platform.lease import Lease
from services.platform.shards import ShardedEventStore, shard_of


class ShardedGameStore:
    def __init__(self, stores: Sequence[GameStore]) -> None:
        self.stores = tuple(stores)
        self.events = ShardedEventStore([s.events for s in self.stores])

    def of(self, game_id: str) -> GameStore:
        return self.stores[shard_of(game_id, len(self.stores))]

    def _split(self, game_ids: Sequence[str]) -> list[tuple[GameStore, list[str]]]:
        parts: list[list[str]] = [[] for _ in self.stores]
        for game_id in game_ids:
            parts[shard_of(game_id, len(self.stores))].append(game_id)
        return [(store, ids) for store, ids in zip(self.stores, parts, strict=True) if ids]

    # --- one game: where it lives ---------------------------------------------------

    async def create(self, game_id: str, table_id: str, banter: bool, owner: str,
                     lease_seconds: float, events: Sequence[msgspec.Struct],
                     command_id: str) -> tuple[AppendResult, int]:
        return await self.of(game_id).create(game_id, table_id, banter, owner, lease_seconds,
                                             events, command_id)

    async def game(self, game_id: str) -> GameRow | None:
        return await self.of(game_id).game(game_id)

    async def mark_ended(self, game_id: str) -> None:
        await self.of(game_id).mark_ended(game_id)

    async def read(self, game_id: str, from_version: int = 1,
                   limit: int | None = None) -> list[RecordedEvent]:
        return await self.of(game_id).read(game_id, from_version, limit)

    async def command_result(self, game_id: str, command_id: str) -> AppendResult | None:
        return await self.of(game_id).command_result(game_id, command_id)

    async def refusals(self, game_id: str) -> dict[str, Refusal]:
        return await self.of(game_id).refusals(game_id)

    async def refuse(self, game_id: str, command_id: str, code: str, message: str,
                     epoch: int, command_hash: str | None = None) -> Refusal:
        return await self.of(game_id).refuse(game_id, command_id, code, message, epoch,
                                             command_hash)

    # --- many games: in every database ------------------------------------------------

    async def game_ids(self) -> list[str]:
        return [g for store in self.stores for g in await store.game_ids()]

    async def renew(self, owner: str, game_ids: Sequence[str], lease_seconds: float) -> set[str]:
        held: set[str] = set()
        for store, ids in self._split(game_ids):
            held |= await store.renew(owner, ids, lease_seconds)
        return held

    async def claim_orphans(self, owner: str, lease_seconds: float, limit: int) -> list[Lease]:
        claimed: list[Lease] = []
        for store in self.stores:
            if len(claimed) < limit:
                claimed += await store.claim_orphans(owner, lease_seconds, limit - len(claimed))
        return claimed

    async def release(self, owner: str, game_ids: Sequence[str]) -> None:
        for store, ids in self._split(game_ids):
            await store.release(owner, ids)


Games = GameStore | ShardedGameStore
