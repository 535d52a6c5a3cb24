"""docs/architecture.md, rule 1, kept by a test: imports point one way, and services
share only ``schemas`` and ``services/platform``.

- ``schemas`` imports neither ``engine`` nor ``services``;
- ``engine`` imports no service and no IO library;
- a service (``services/<name>/``) imports no other service's modules;
- ``services/platform`` imports no service, nor the modules that know the list of
  services (``services/*.py``: the CLI, the catalog, the registry);
- only ``services/platform`` imports ``nats`` (docs/architecture.md, rule 10: services
  never see nats types; they use ``services/platform/busclient.py``), and no module
  outside it reads a NATS connection's or JetStream context's attribute (``.nc``,
  ``.js``, ``.jetstream``): what a service does on the bus goes through the platform's
  client;
- the lobby's rooms (docs/architecture.md, rule 15: ``services/lobby/<room>/``) import
  only rooms below them (``LOBBY_ROOMS``, lowest first) and nothing of the lobby's top
  level (the service that wires them); a room that ``ROOM_USERS`` names is imported,
  outside the rooms above it, only by the top-level modules listed there.

Every import counts, also one inside a function or under ``TYPE_CHECKING``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
IO_LIBRARIES = {"asyncio", "asyncpg", "nats", "litestar", "uvicorn", "socket", "subprocess",
                "threading", "urllib", "http", "time", "datetime"}
# lowest first: a room imports only rooms before it, and nothing of the lobby's top level
LOBBY_ROOMS = ("base", "clients", "accounts", "tables", "matches", "ranked", "tournaments",
               "games", "history", "edge", "http")
ROOM_USERS = {  # a room only these top-level modules may import (the others: any)
    "ranked": {"service"},  # the service builds the queue and hands it to the rooms above
}


def imports(path: Path) -> Iterator[tuple[int, str]]:
    """Every module ``path`` imports, as (line, dotted name), relative ones resolved."""
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            yield node.lineno, base
            for alias in node.names:  # `from services import catalog` names a module
                yield node.lineno, f"{base}.{alias.name}"


def service_of(module: str) -> str | None:
    """The service a module belongs to, "platform", "composition" for ``services/*.py``,
    or None outside ``services``."""
    parts = module.split(".")
    if parts[0] != "services" or len(parts) == 1:
        return None
    if (ROOT / "services" / parts[1]).is_dir():
        return parts[1]
    return "composition"


def lobby_rule(rel: tuple[str, ...], module: str) -> str | None:
    """The rooms' rule for a lobby module at ``rel`` importing ``module``."""
    parts = module.split(".")
    if parts[:2] != ["services", "lobby"] or len(parts) < 3:
        return None
    theirs = parts[2]
    mine = rel[2] if len(rel) > 3 else None  # None: the lobby's top level
    if mine == theirs:
        return None
    if mine in LOBBY_ROOMS:
        below = LOBBY_ROOMS[:LOBBY_ROOMS.index(mine)]
        if theirs in LOBBY_ROOMS and theirs not in below:
            return f"the lobby's {mine}/ room imports only rooms below it"
        if theirs not in LOBBY_ROOMS:
            return f"the lobby's {mine}/ room imports nothing of the lobby's top level"
        return None
    users = ROOM_USERS.get(theirs)
    if mine is None and users is not None and Path(rel[-1]).stem not in users:
        return f"only {sorted(users)} of the lobby's top level import its {theirs}/ room"
    return None


def broken_rule(path: Path, module: str) -> str | None:
    rel = path.relative_to(ROOT).parts
    top = module.split(".")[0]
    if top == "nats" and rel[:2] != ("services", "platform"):
        return "only services/platform imports nats: a service uses the platform's bus client"
    if rel[0] == "schemas" and top in ("engine", "services"):
        return "schemas imports only msgspec and the standard library"
    if rel[0] == "engine" and (top == "services" or top in IO_LIBRARIES):
        return "the engine imports no service and no IO library"
    if rel[0] != "services" or len(rel) < 3:
        return None  # services/*.py compose the services: they may import any
    mine, theirs = rel[1], service_of(module)
    if mine == "platform" and theirs not in (None, "platform"):
        return "services/platform imports no service and not the list of services"
    if mine != "platform" and theirs not in (None, "platform", mine):
        return f"the {mine} service imports only schemas, engine, platform and itself"
    if mine == "lobby":
        return lobby_rule(rel, module)
    return None


def sources() -> list[Path]:
    return sorted(p for top in ("schemas", "engine", "services")
                  for p in (ROOT / top).rglob("*.py"))


NATS_HANDLES = {"nc", "js", "jetstream"}  # a NATS connection, a JetStream context


def nats_handles(path: Path) -> Iterator[tuple[int, str]]:
    """Every ``.nc``, ``.js`` or ``.jetstream`` a module outside the platform reads."""
    if path.relative_to(ROOT).parts[:2] == ("services", "platform"):
        return
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Attribute) and node.attr in NATS_HANDLES:
            yield node.lineno, node.attr


def violations(paths: list[Path]) -> list[str]:
    found = []
    for path in paths:
        for line, module in imports(path):
            rule = broken_rule(path, module)
            if rule:
                found.append(f"{path.relative_to(ROOT)}:{line} imports {module}: {rule}")
        for line, attr in nats_handles(path):
            found.append(f"{path.relative_to(ROOT)}:{line} reads .{attr}: only services/platform"
                         " holds the NATS connection; a service uses the platform's bus client")
    return sorted(set(found))


def test_the_tree_keeps_the_import_rules() -> None:
    assert violations(sources()) == []


@pytest.mark.parametrize(("where", "line", "rule"), [
    ("schemas/x.py", "from engine.state import GameState", "schemas imports only"),
    ("schemas/x.py", "import services.platform.bus", "schemas imports only"),
    ("engine/x.py", "from services.game import worker", "the engine imports no service"),
    ("engine/x.py", "import asyncio", "no IO library"),
    ("services/lobby/x.py", "from services.game.store import GameStore", "the lobby service"),
    ("services/lobby/x.py", "from services import ratings", "the lobby service"),
    ("services/game/x.py", "from services import catalog", "the game service"),
    ("services/platform/x.py", "from services.lobby import auth", "services/platform"),
    ("services/platform/x.py", "from services import catalog", "services/platform"),
    ("services/platform/sub/x.py", "from ...lobby import tables", "services/platform"),
    ("services/lobby/x.py", "import nats.errors", "only services/platform imports nats"),
    ("services/game/x.py", "from nats.aio.client import Client", "only services/platform"),
    ("services/x.py", "import nats.errors", "only services/platform imports nats"),
    ("engine/x.py", "import nats", "only services/platform imports nats"),
    ("schemas/x.py", "from nats.js.api import StreamConfig", "only services/platform"),
    ("services/game/x.py", "relay = OutboxRelay(rt.pool, rt.js, subject)",
     "only services/platform holds the NATS connection"),
    ("services/lobby/x.py", "await rt.nc.flush()", "only services/platform holds"),
    ("services/x.py", "js = client.jetstream()", "only services/platform holds"),
    ("services/lobby/clients/x.py", "from services.lobby.ranked.queue import Queue",
     "room imports only rooms below it"),
    ("services/lobby/clients/x.py", "from services.lobby import service", "nothing of the"),
    ("services/lobby/base/x.py", "from services.lobby import store", "nothing of the lobby's"),
    ("services/lobby/clients/x.py", "from ..tables import Tables", "rooms below it"),
    ("services/lobby/base/x.py", "from services.lobby.clients.gameworkers import GameClient",
     "rooms below it"),
    ("services/lobby/tables/x.py", "from services.lobby.matches.opening import Matches",
     "rooms below it"),
    ("services/lobby/ranked/x.py", "from services.lobby.edge.connections import Conn",
     "rooms below it"),
    ("services/lobby/ranked/x.py", "from ..games import store", "rooms below it"),
    ("services/lobby/edge/x.py", "from services.lobby.http.api import static_file",
     "rooms below it"),
    ("services/lobby/x.py", "from services.lobby.ranked import store",
     "of the lobby's top level import its ranked/ room"),
    ("services/lobby/chat.py", "from .ranked.queue import Queue", "its ranked/ room"),
])
def test_each_rule_catches_a_breach(tmp_path: Path, where: str, line: str, rule: str,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The check itself can fail: a file that breaks a rule is named with the rule."""
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    for folder in ("lobby", "game", "ratings", "platform"):
        (tmp_path / "services" / folder).mkdir(parents=True)
    path = tmp_path / where
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"{line}\n")
    found = violations([path])
    assert found and all(rule in f and where in f for f in found)


@pytest.mark.parametrize(("where", "line"), [
    ("services/lobby/x.py", "from services.lobby import store"),
    ("services/lobby/clients/x.py", "from services.lobby.base.errors import LobbyError"),
    ("services/lobby/clients/x.py", "from .broadcasts import Broadcasts"),
    ("services/lobby/ranked/x.py", "from services.lobby.clients.gameworkers import GameClient"),
    ("services/lobby/ranked/x.py", "from services.lobby.matches import store"),
    ("services/lobby/ranked/x.py", "from ..tables.store import TableRow"),
    ("services/lobby/games/x.py", "from services.lobby.ranked import leavers"),
    ("services/lobby/http/x.py", "from ..edge.gateway import Gateway"),
    ("services/lobby/service.py", "from services.lobby.ranked.queue import Queue"),
    ("services/lobby/edge/gateway.py", "from services.lobby.ranked.queue import Queue"),
    ("services/lobby/x.py", "from services.lobby.clients import broadcasts"),
    ("services/lobby/x.py", "from services.platform import bus"),
    ("services/platform/x.py", "import nats.errors"),
    ("services/platform/x.py", "relay = OutboxRelay(pool, client.js, subject)"),
    ("services/game/x.py", "relay = OutboxRelay(rt.pool, rt.client, subject)"),
    ("services/lobby/x.py", "from schemas import ws"),
    ("services/game/x.py", "from engine.decide import step"),
    ("services/cli.py", "from services.lobby import roles"),
    ("engine/x.py", "from schemas import events"),
])
def test_what_the_rules_allow_passes(tmp_path: Path, where: str, line: str,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    for folder in ("lobby", "game", "platform"):
        (tmp_path / "services" / folder).mkdir(parents=True)
    path = tmp_path / where
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"{line}\n")
    assert violations([path]) == []
