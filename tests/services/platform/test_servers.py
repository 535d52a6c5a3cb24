from __future__ import annotations

import asyncpg
import nats
import nats.js.errors
import pytest

from services.platform import bus, connection, servers
from services.platform.busclient import BusClient


async def test_session_has_a_real_postgres_with_the_migrated_schemas(database_url: str) -> None:
    conn = await asyncpg.connect(database_url)
    try:
        schemas = {r["nspname"] for r in await conn.fetch("SELECT nspname FROM pg_namespace")}
        assert {"lobby", "game", "ratings", "tournaments", "contract"} <= schemas
        assert await conn.fetchval("SELECT current_database()") == database_url.rsplit("/", 1)[1]
    finally:
        await conn.close()


async def test_session_has_a_real_nats_with_jetstream(nats_url: str) -> None:
    nc = await nats.connect(nats_url)
    try:
        info = await nc.jetstream().account_info()
        assert info.limits is not None
    finally:
        await nc.close()


async def test_a_three_node_cluster_replicates_every_stream_on_all_three_nodes(
        nats_cluster: servers.NatsCluster, nats_prefix: str) -> None:
    assert len(nats_cluster.nodes) == 3
    leader = nats_cluster.wait_for_meta_leader()
    assert leader in {node.server_name for node in nats_cluster.nodes}
    nc = await connection.connect(nats_cluster.url, "cluster-test")
    try:
        client = BusClient(nc)
        js = client.js
        spec = bus.StreamSpec(f"{nats_prefix}_REPLICATED", (f"{nats_prefix}.replicated.>",),
                              duplicate_window=60, replicas=3)
        await bus.ensure_stream(client, spec)
        info = await js.stream_info(spec.name)
        assert info.config.num_replicas == 3
        assert info.cluster is not None and info.cluster.leader
        peers = {info.cluster.leader, *(r.name for r in info.cluster.replicas or [])}
        assert peers == {"n1", "n2", "n3"}
        ack = await js.publish(f"{nats_prefix}.replicated.one", b"x")
        assert ack.seq == 1
    finally:
        await nc.close()


async def test_a_stream_asking_more_replicas_than_one_server_has_is_refused(
        nats_url: str, nats_prefix: str) -> None:
    nc = await connection.connect(nats_url, "replicas-test")
    try:
        spec = bus.StreamSpec(f"{nats_prefix}_TOO_MANY", (f"{nats_prefix}.toomany.>",),
                              duplicate_window=60, replicas=3)
        with pytest.raises((bus.BusConfigError, nats.js.errors.APIError)):
            await bus.ensure_stream(BusClient(nc), spec)
    finally:
        await nc.close()
