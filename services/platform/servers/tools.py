"""The package's client programs (psql, pg_basebackup, pg_combinebackup...), run to
the end: their output, or one line saying why they failed."""

from __future__ import annotations

import subprocess

from .postgres import postgres_bin_dir
from .process import ServerError


def run_tool(name: str, *args: str, timeout: float = 600) -> str:
    """Run one of the package's programs; its output, or a ServerError naming why not."""
    result = subprocess.run([str(postgres_bin_dir() / name), *args], capture_output=True,
                            text=True, timeout=timeout)
    if result.returncode != 0:
        said = " | ".join((result.stderr or result.stdout).strip().splitlines())
        raise ServerError(f"{name} failed: {said[-800:] or '?'}")
    return result.stdout


def query(url: str, sql: str) -> list[str]:
    """One statement's rows, one column each, through ``psql`` (a multi-host URL finds
    the primary as the services' does)."""
    out = run_tool("psql", "-X", "-A", "-t", "-q", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", sql,
                   timeout=60)
    return [line for line in out.splitlines() if line]
