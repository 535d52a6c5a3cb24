"""Each table has one owner, and only its owner's SQL names it.

A service's tables are those its own migrations create (``services/<name>/migrations``;
the platform's under ``services/platform/sql``): no other service's SQL names them,
what another service needs it gets from an event or a request. Inside the lobby each
room (``services/lobby/<room>/``) owns the tables ``LOBBY_OWNERS`` gives it, and writes
and reads only those: a room that needs another's rows asks that room's store, which
may take the caller's connection so both share a transaction.

The SQL is read from the string literals of each module (docstrings aside): a table
named after ``FROM``, ``JOIN``, ``UPDATE``, ``INTO`` or ``TABLE``.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SERVICES = ROOT / "services"
LOBBY = SERVICES / "lobby"

LOBBY_OWNERS = {
    "accounts": {"accounts"},
    "tables": {"game_tables", "running_seats"},
    "matches": {"matches"},
    "ranked": {"queue_tickets", "queue_members", "queue_matches", "queue_penalties"},
    "games": {"games"},
    "history": {"player_games"},
}
_NAMED = re.compile(r"\b(?:FROM|JOIN|UPDATE|INTO|TABLE)\s+([a-z_][a-z0-9_]*)")
_CREATED = re.compile(r"CREATE TABLE (?:IF NOT EXISTS )?([a-z_][a-z0-9_]*)")


def created_by(folder: Path) -> set[str]:
    return {name for sql in folder.rglob("*.sql") for name in _CREATED.findall(sql.read_text())}


def service_tables() -> dict[str, set[str]]:
    """Each service's tables (and the platform's), from the migrations that create them."""
    owners = {"platform": created_by(SERVICES / "platform")}
    for migrations in SERVICES.glob("*/migrations"):
        owners[migrations.parent.name] = created_by(migrations)
    return owners


def sql_tables(path: Path) -> Iterator[str]:
    """The tables named by the SQL in ``path``'s string literals."""
    tree = ast.parse(path.read_text(), str(path))
    docstrings = {id(n.value) for n in ast.walk(tree)
                  if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and id(node) not in docstrings:
            yield from _NAMED.findall(node.value)


def rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


def test_every_lobby_table_has_one_room_for_owner() -> None:
    owned = [t for tables in LOBBY_OWNERS.values() for t in tables]
    assert len(owned) == len(set(owned))
    assert set(owned) == created_by(LOBBY / "migrations") - {"players"}  # dropped (0004)


def test_no_service_names_another_service_s_tables() -> None:
    owners = service_tables()
    theirs: dict[str, set[str]] = defaultdict(set)
    for name, tables in owners.items():
        for other in owners:
            if other != name:
                theirs[other] |= tables - owners[other]
    wrong = []
    for path in SERVICES.rglob("*.py"):
        parts = path.relative_to(SERVICES).parts
        if len(parts) < 2 or parts[0] not in owners or parts[0] == "platform":
            continue  # the CLI and the catalog name no table; the platform's are its own
        wrong += [(rel(path), t) for t in sql_tables(path) if t in theirs[parts[0]]]
    assert not wrong, wrong


def test_each_lobby_room_s_sql_names_only_its_own_tables() -> None:
    owner_of = {t: room for room, tables in LOBBY_OWNERS.items() for t in tables}
    wrong = []
    for path in LOBBY.rglob("*.py"):
        parts = path.relative_to(LOBBY).parts
        room = parts[0] if len(parts) > 1 else None  # a top-level module owns nothing
        for table in sql_tables(path):
            if table in owner_of and owner_of[table] != room:
                wrong.append((rel(path), table))
    assert not wrong, wrong
