"""`spades serve SERVICE`: JSON logs with bound ids, readiness, clean exit on SIGTERM."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from services.platform import servers

ROOT = Path(__file__).resolve().parents[2]


def test_serve_logs_json_and_stops_cleanly_on_sigterm(
        tmp_path: Path, database_url: str, nats_url: str, nats_prefix: str) -> None:
    port = servers.free_port()
    env = {**os.environ, "DATABASE_URL": database_url, "NATS_URL": nats_url,
           "SPADES_HTTP_PORT": str(port), "SPADES_NATS_PREFIX": f"{nats_prefix}serve",
           "SPADES_INSTANCE_ID": "copy-7", "PYTHONPATH": str(ROOT)}
    log = tmp_path / "out.log"
    with open(log, "w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "services.cli", "serve", "tournaments"],
                                env=env, cwd=ROOT, stdout=out, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while True:
            assert time.monotonic() < deadline, log.read_text()
            assert proc.poll() is None, log.read_text()
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=1) as r:
                    if r.status == 200:
                        break
            except OSError:
                time.sleep(0.1)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    lines = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    events = [line["event"] for line in lines]
    assert events[0] == "started" and events[-1] == "stopped" and "stopping" in events
    assert all(line["service"] == "tournaments" and line["instance"] == "copy-7"
               for line in lines)
