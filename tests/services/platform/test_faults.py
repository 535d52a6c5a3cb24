"""Crash the write path at each named point; nothing is lost and nothing is doubled."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from services.platform import bus, faults
from services.platform.busclient import BusClient

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
async def lane(client: BusClient, nats_prefix: str) -> dict[str, str]:
    """A JetStream stream and subject space of this test's own."""
    tag = uuid.uuid4().hex[:8]
    base = f"{nats_prefix}.fault{tag}"
    name = f"{nats_prefix}_FAULT{tag}"
    await bus.ensure_stream(client, bus.StreamSpec(name, (f"{base}.>",), duplicate_window=120))
    return {"SUBJECT_BASE": base, "JS_STREAM": name, "STREAM": f"s{tag}",
            "COMMAND_ID": f"c{tag}", "DURABLE": f"d{tag}"}


async def run(mode: str, fault: str | None, database_url: str, nats_url: str,
              lane: dict[str, str], **extra: str) -> tuple[int, dict[str, Any] | None]:
    env = {**os.environ, **lane, "DATABASE_URL": database_url, "NATS_URL": nats_url,
           "MODE": mode, "PYTHONPATH": str(ROOT), **extra}
    env.pop("SPADES_FAULT", None)
    if fault:
        env["SPADES_FAULT"] = fault
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.services.platform.fault_writer", env=env, cwd=ROOT,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode is not None
    if proc.returncode not in (0, faults.EXIT_CODE):
        raise AssertionError(err.decode())
    return proc.returncode, json.loads(out) if proc.returncode == 0 else None


async def stored(database_url: str, stream: str) -> tuple[int, int]:
    conn = await asyncpg.connect(database_url, server_settings={"search_path": "contract"})
    try:
        events = await conn.fetchval("SELECT count(*) FROM events WHERE stream = $1", stream)
        queued = await conn.fetchval(
            "SELECT count(*) FROM outbox JOIN events USING (position) WHERE stream = $1", stream)
        return events, queued
    finally:
        await conn.close()


async def on_jetstream(client: BusClient, lane: dict[str, str]) -> int:
    """Messages of this test's event stream (the relay also carries other tests' rows)."""
    ours = f"{lane['SUBJECT_BASE']}.{lane['STREAM']}.>"
    info = await client.js.stream_info(lane["JS_STREAM"], subjects_filter=ours)
    return sum((info.state.subjects or {}).values())


async def test_crash_before_commit_leaves_nothing_and_the_retry_writes_once(
        database_url: str, nats_url: str, lane: dict[str, str], client: BusClient) -> None:
    code, _ = await run("append", faults.BEFORE_COMMIT, database_url, nats_url, lane)
    assert code == faults.EXIT_CODE
    assert await stored(database_url, lane["STREAM"]) == (0, 0)
    _, out = await run("append", None, database_url, nats_url, lane)
    assert out == {"first": 1, "last": 2, "duplicate": False}
    await run("relay", None, database_url, nats_url, lane)
    assert await on_jetstream(client, lane) == 2


async def test_crash_after_commit_before_reply_keeps_the_events_and_the_retry_is_a_no_op(
        database_url: str, nats_url: str, lane: dict[str, str], client: BusClient) -> None:
    code, _ = await run("append", faults.AFTER_COMMIT_BEFORE_REPLY, database_url, nats_url, lane)
    assert code == faults.EXIT_CODE
    assert await stored(database_url, lane["STREAM"]) == (2, 2)
    _, out = await run("append", None, database_url, nats_url, lane)
    assert out == {"first": 1, "last": 2, "duplicate": True}
    _, relayed = await run("relay", None, database_url, nats_url, lane)
    assert relayed is not None and relayed["published"] >= 2
    assert await on_jetstream(client, lane) == 2
    assert await stored(database_url, lane["STREAM"]) == (2, 0)


async def test_crash_after_publish_before_mark_republishes_and_jetstream_drops_the_copy(
        database_url: str, nats_url: str, lane: dict[str, str], client: BusClient) -> None:
    await run("append", None, database_url, nats_url, lane)
    code, _ = await run("relay", faults.AFTER_PUBLISH_BEFORE_MARK, database_url, nats_url, lane)
    assert code == faults.EXIT_CODE
    assert await on_jetstream(client, lane) == 2
    assert await stored(database_url, lane["STREAM"]) == (2, 2)
    _, relayed = await run("relay", None, database_url, nats_url, lane)
    assert relayed is not None and relayed["published"] >= 2
    assert await on_jetstream(client, lane) == 2
    assert await stored(database_url, lane["STREAM"]) == (2, 0)


async def test_crash_after_consumer_commit_before_ack_applies_once(
        database_url: str, nats_url: str, lane: dict[str, str]) -> None:
    conn = await asyncpg.connect(database_url, server_settings={"search_path": "contract"})
    await conn.execute("CREATE TABLE IF NOT EXISTS tally (stream text, version bigint)")
    await run("append", None, database_url, nats_url, lane)
    await run("relay", None, database_url, nats_url, lane)
    code, _ = await run("consume", faults.CONSUMER_AFTER_COMMIT_BEFORE_ACK, database_url,
                        nats_url, lane)
    assert code == faults.EXIT_CODE
    await asyncio.sleep(1.2)  # the consumer's ack wait: JetStream redelivers after it
    _, out = await run("consume", None, database_url, nats_url, lane)
    assert out is not None
    # One fetch is one transaction: both events were committed before the crash.
    assert out["outcomes"][:2] == ["duplicate", "duplicate"]
    rows = await conn.fetch("SELECT version FROM tally WHERE stream = $1 ORDER BY version",
                            lane["STREAM"])
    await conn.close()
    assert [r["version"] for r in rows] == [1, 2]


async def test_crash_after_commit_before_the_writers_publish_delivers_every_event_once(
        database_url: str, nats_url: str, lane: dict[str, str], client: BusClient) -> None:
    conn = await asyncpg.connect(database_url, server_settings={"search_path": "contract"})
    await conn.execute("CREATE TABLE IF NOT EXISTS tally (stream text, version bigint)")
    code, _ = await run("publish", faults.AFTER_COMMIT_BEFORE_PUBLISH, database_url, nats_url,
                        lane, EXPECTED="0")
    assert code == faults.EXIT_CODE
    assert await stored(database_url, lane["STREAM"]) == (2, 2)
    assert await on_jetstream(client, lane) == 0
    # The retry is a duplicate: it publishes nothing, the relay's sweep does.
    _, out = await run("publish", None, database_url, nats_url, lane, EXPECTED="0")
    assert out == {"first": 1, "last": 2, "duplicate": True, "forgotten": 0}
    # The next command's writer publishes its own events and deletes their rows.
    _, out = await run("publish", None, database_url, nats_url, lane, EXPECTED="2",
                       COMMAND_ID=f"{lane['COMMAND_ID']}-next")
    assert out == {"first": 3, "last": 4, "duplicate": False, "forgotten": 2}
    assert await stored(database_url, lane["STREAM"]) == (4, 2)
    _, relayed = await run("relay", None, database_url, nats_url, lane)
    assert relayed is not None and relayed["published"] >= 2
    assert await stored(database_url, lane["STREAM"]) == (4, 0)
    assert await on_jetstream(client, lane) == 4
    _, consumed = await run("consume", None, database_url, nats_url, lane)
    assert consumed is not None
    rows = await conn.fetch("SELECT version FROM tally WHERE stream = $1 ORDER BY version",
                            lane["STREAM"])
    await conn.close()
    assert [r["version"] for r in rows] == [1, 2, 3, 4]


def _other(lane: dict[str, str]) -> dict[str, str]:
    """The second stream a group commit writes (see ``fault_writer``)."""
    return {**lane, "STREAM": lane["STREAM"] + "b", "DURABLE": lane["DURABLE"] + "b"}


async def test_crash_before_a_group_commit_leaves_no_stream_written(
        database_url: str, nats_url: str, lane: dict[str, str]) -> None:
    code, _ = await run("group", faults.BEFORE_COMMIT, database_url, nats_url, lane,
                        EXPECTED="0")
    assert code == faults.EXIT_CODE
    for ours in (lane, _other(lane)):
        assert await stored(database_url, ours["STREAM"]) == (0, 0)
    _, out = await run("group", None, database_url, nats_url, lane, EXPECTED="0")
    assert out == {"results": [[1, 2, False], [1, 2, False]], "batches": 1, "forgotten": 4}


@pytest.fixture
async def tally(database_url: str) -> AsyncIterator[asyncpg.Connection]:
    """What the consumer mode applied, one row per event."""
    conn = await asyncpg.connect(database_url, server_settings={"search_path": "contract"})
    await conn.execute("CREATE TABLE IF NOT EXISTS tally (stream text, version bigint)")
    yield conn
    await conn.close()


async def test_crash_after_a_group_commit_before_its_publish_delivers_every_event_once(
        database_url: str, nats_url: str, lane: dict[str, str], client: BusClient,
        tally: asyncpg.Connection) -> None:
    code, _ = await run("group", faults.AFTER_COMMIT_BEFORE_PUBLISH, database_url, nats_url,
                        lane, EXPECTED="0")
    assert code == faults.EXIT_CODE
    for ours in (lane, _other(lane)):
        assert await stored(database_url, ours["STREAM"]) == (2, 2)
        assert await on_jetstream(client, ours) == 0
    # The retry is a duplicate for both streams: the relay's sweep publishes.
    _, out = await run("group", None, database_url, nats_url, lane, EXPECTED="0")
    assert out == {"results": [[1, 2, True], [1, 2, True]], "batches": 1, "forgotten": 0}
    _, relayed = await run("relay", None, database_url, nats_url, lane)
    assert relayed is not None and relayed["published"] >= 4
    for ours in (lane, _other(lane)):
        assert await stored(database_url, ours["STREAM"]) == (2, 0)
        assert await on_jetstream(client, ours) == 2
        _, consumed = await run("consume", None, database_url, nats_url, ours)
        assert consumed is not None
        rows = await tally.fetch("SELECT version FROM tally WHERE stream = $1 ORDER BY version",
                                 ours["STREAM"])
        assert [r["version"] for r in rows] == [1, 2]
