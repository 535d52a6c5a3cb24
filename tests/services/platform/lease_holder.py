"""A lease holder process for the fencing test: claims a lease on a stream, renews it
and appends an event with its epoch every few milliseconds, until a write is fenced.

Configured by environment: DATABASE_URL, STREAM, HOLDER. Prints one JSON line per
write ({"wrote": version} or {"fenced": epoch}) and exits 0 once fenced.
"""

from __future__ import annotations

import asyncio
import json
import os

import asyncpg

from services.platform.events import EventRegistry
from services.platform.eventstore import EventStore
from services.platform.lease import FencedError, Leases
from tests.services.platform.sample_events import Counted, Sample

LEASE_SECONDS = 1.0


async def main() -> None:
    env = os.environ
    pool = await asyncpg.create_pool(env["DATABASE_URL"], min_size=1, max_size=2,
                                     server_settings={"search_path": "contract,public"})
    assert pool is not None
    leases, store = Leases(pool), EventStore(pool, EventRegistry(Sample))
    lease = await leases.claim(env["STREAM"], env["HOLDER"], LEASE_SECONDS)
    n = 0
    while True:
        await leases.renew(lease.holder, [lease.name], LEASE_SECONDS)
        try:
            result = await store.append(lease.name, None, [Counted(n=n)], epoch=lease.epoch)
        except FencedError:
            print(json.dumps({"fenced": lease.epoch}), flush=True)
            break
        print(json.dumps({"wrote": result.last_version}), flush=True)
        n += 1
        await asyncio.sleep(0.02)
    await pool.close()


if __name__ == "__main__":
    asyncio.run(main())
