"""The games of a worker over several databases, each game whole in one.

A game's row, its lease, its refused commands and its events live in one
database: the lease is checked inside the append, so it must sit where the
stream does, and every write about one game stays one transaction in one
database. Which one is settled when the game is created (a new game goes where
its id hashes to among the databases named now) and found again by its rows
(``services.platform.eventstore.shards.Homes``), so a database added later moves
no game. What spans games (renewing a worker's leases, claiming lapsed ones,
letting them go) is done in each database in turn. The worker sees one store
with the same methods as ``GameStore``.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from services.game.store import GameRow, GameStore, Refusal
from services.platform.eventstore import AppendResult, RecordedEvent
from services.platform.eventstore.shards import ShardedEventStore
from services.platform.lease import Lease


class ShardedGameStore:
    def __init__(self, stores: Sequence[GameStore]) -> None:
        self.stores = tuple(stores)
        self.events = ShardedEventStore([s.events for s in self.stores])

    async def of(self, game_id: str) -> GameStore:
        return self.stores[await self.events.homes.of(game_id)]

    async def _split(self, game_ids: Sequence[str]) -> list[tuple[GameStore, list[str]]]:
        parts: list[list[str]] = [[] for _ in self.stores]
        for game_id in game_ids:
            parts[await self.events.homes.of(game_id)].append(game_id)
        return [(store, ids) for store, ids in zip(self.stores, parts, strict=True) if ids]

    # --- one game: where it lives ---------------------------------------------------

    async def create(self, game_id: str, table_id: str, banter: bool, owner: str,
                     lease_seconds: float, events: Sequence[msgspec.Struct],
                     command_id: str) -> tuple[AppendResult, int]:
        shard = await self.events.homes.of(game_id)
        created = await self.stores[shard].create(game_id, table_id, banter, owner,
                                                  lease_seconds, events, command_id)
        self.events.homes.settle(game_id, shard)
        return created

    async def game(self, game_id: str) -> GameRow | None:
        return await (await self.of(game_id)).game(game_id)

    async def mark_ended(self, game_id: str) -> None:
        await (await self.of(game_id)).mark_ended(game_id)

    async def read(self, game_id: str, from_version: int = 1,
                   limit: int | None = None) -> list[RecordedEvent]:
        return await (await self.of(game_id)).read(game_id, from_version, limit)

    async def command_result(self, game_id: str, command_id: str) -> AppendResult | None:
        return await (await self.of(game_id)).command_result(game_id, command_id)

    async def refusals(self, game_id: str) -> dict[str, Refusal]:
        return await (await self.of(game_id)).refusals(game_id)

    async def refuse(self, game_id: str, command_id: str, code: str, message: str,
                     epoch: int, command_hash: str | None = None) -> Refusal:
        return await (await self.of(game_id)).refuse(game_id, command_id, code, message,
                                                      epoch, command_hash)

    # --- many games: in every database ------------------------------------------------

    async def game_ids(self) -> list[str]:
        return [g for store in self.stores for g in await store.game_ids()]

    async def renew(self, owner: str, game_ids: Sequence[str], lease_seconds: float) -> set[str]:
        held: set[str] = set()
        for store, ids in await self._split(game_ids):
            held |= await store.renew(owner, ids, lease_seconds)
        return held

    async def claim_orphans(self, owner: str, lease_seconds: float, limit: int) -> list[Lease]:
        claimed: list[Lease] = []
        for shard, store in enumerate(self.stores):
            if len(claimed) < limit:
                more = await store.claim_orphans(owner, lease_seconds, limit - len(claimed))
                for lease in more:  # found where it lives: no need to ask again
                    self.events.homes.settle(lease.name, shard)
                claimed += more
        return claimed

    async def release(self, owner: str, game_ids: Sequence[str]) -> None:
        for store, ids in await self._split(game_ids):
            await store.release(owner, ids)


Games = GameStore | ShardedGameStore
