"""Servers for benchmarks: the environment's URLs, else the embedded binaries.

Benchmarks keep Postgres durable (fsync on), as `spades dev` runs it, so the
figures mean something.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from services.platform import servers


@contextlib.contextmanager
def bench_servers() -> Iterator[tuple[str, str]]:
    db, nats_url = os.environ.get("DATABASE_URL"), os.environ.get("NATS_URL")
    if db and nats_url:
        yield db, nats_url
        return
    root = Path(tempfile.mkdtemp(prefix="spades-bench-"))
    both = servers.embedded(root)
    both.start()
    try:
        yield both.postgres.url, both.nats.url
    finally:
        both.stop()
        shutil.rmtree(root, ignore_errors=True)


@contextlib.contextmanager
def bench_cluster(nodes: int = 3) -> Iterator[servers.NatsCluster]:
    """A NATS cluster of our own (never the environment's: a bench kills its nodes),
    from the same pinned binary; its nodes' CPU counts as NATS's."""
    with servers.throwaway_cluster(nodes, "spades-bench-cluster-") as cluster:
        yield cluster


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return (ordered[len(ordered) // 2] * 1000, ordered[int(len(ordered) * 0.99)] * 1000)


def p50_p99_seconds(samples: list[float]) -> str:
    """Samples in seconds as "p50 .. s  p99 .. s" ("-" for none)."""
    if not samples:
        return "-"
    p50, p99 = percentiles(samples)
    return f"p50 {p50 / 1000:6.2f} s  p99 {p99 / 1000:6.2f} s"
