"""What `spades dev` keeps in its data folder, for its next start and for the commands
an operator runs beside it.

- ``token_secret``: made once, reused on every start, so restarting `spades dev` keeps
  every signed-in player signed in (a fresh secret would void every token while their
  games play on).
- ``running.json``: the database and NATS URLs of the running `spades dev`, so
  `spades operator grant NAME`, `spades replay GAME_ID` and the like find its database
  without being told. It counts only while `dev.lock` is held: a crashed `spades dev`
  leaves the file behind, never a lock.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import secrets
from pathlib import Path

from services.platform.settings import SettingsError

LOCK = "dev.lock"
SECRET = "token_secret"
RUNNING = "running.json"


def root() -> Path:
    """The data folder: ``SPADES_DATA_DIR``, else ``./.data``."""
    return Path(os.environ.get("SPADES_DATA_DIR", ".data")).resolve()


def token_secret(folder: Path) -> str:
    """The folder's token secret, made on first use and readable by its owner only."""
    path = folder / SECRET
    with contextlib.suppress(FileNotFoundError):
        kept = path.read_text().strip()
        if kept:
            return kept
    made = secrets.token_hex(32)
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(made + "\n")
    return made


def announce(folder: Path, database_url: str, nats_url: str) -> None:
    """Tell commands run beside this `spades dev` where its servers are."""
    path = folder / RUNNING
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        json.dump({"database_url": database_url, "nats_url": nats_url}, out)


def withdraw(folder: Path) -> None:
    (folder / RUNNING).unlink(missing_ok=True)


def _held(lock: Path) -> bool:
    """Whether a running `spades dev` holds the folder's lock (it holds it for its life;
    a crashed one leaves the file behind, never the lock)."""
    try:
        fd = os.open(lock, os.O_RDONLY)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def running_urls(folder: Path) -> dict[str, str]:
    """The servers of the `spades dev` running on ``folder`` (``DATABASE_URL`` and
    ``NATS_URL``), or nothing when none runs there."""
    if not _held(folder / LOCK):
        return {}
    try:
        kept = json.loads((folder / RUNNING).read_text())
    except (FileNotFoundError, ValueError):
        return {}
    urls = {"DATABASE_URL": kept.get("database_url"), "NATS_URL": kept.get("nats_url")}
    return {k: v for k, v in urls.items() if isinstance(v, str) and v}


def environ() -> dict[str, str]:
    """The environment, with the servers of the `spades dev` running in the data folder
    filling in whichever of ``DATABASE_URL`` and ``NATS_URL`` it does not set."""
    return {**running_urls(root()), **os.environ}


def database_url() -> str:
    """``DATABASE_URL``, else the database of the `spades dev` running in the data folder."""
    url = environ().get("DATABASE_URL")
    if not url:
        raise SettingsError("setting DATABASE_URL is required (or run this beside "
                            "`spades dev`, which it then finds by itself)")
    return url
