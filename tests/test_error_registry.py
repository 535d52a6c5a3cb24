"""docs/architecture.md, rule 14, kept by a test: every code the services raise is in the
one registry (``schemas/errors/__init__.py``), the modules that list codes read them from
it, and a raise names a code, never an HTTP status."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from engine import errors as rule_errors
from schemas import ws
from schemas.errors import REGISTRY, RETRY_AFTER, UnknownCode, codes, from_service, lookup
from schemas.errors import docs as errordocs
from services.lobby.base.errors import LobbyError
from services.lobby.http.errors import error_response
from services.tournaments import errors as tournament_errors

ROOT = Path(__file__).resolve().parents[1]
RAISERS = {"LobbyError", "RuleError", "TournamentError", "ServiceError"}


def raised_codes() -> list[tuple[str, int, object]]:
    """(file, line, first argument) of every call to an error type with a code."""
    out: list[tuple[str, int, object]] = []
    for path in [*ROOT.glob("services/**/*.py"), *ROOT.glob("engine/**/*.py")]:
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id in RAISERS and node.args):
                first = node.args[0]
                value = first.value if isinstance(first, ast.Constant) else None
                out.append((str(path.relative_to(ROOT)), node.lineno, value))
    return out


def test_every_code_raised_with_a_literal_is_registered() -> None:
    found = raised_codes()
    assert len(found) > 150
    literal = [(f, n, v) for f, n, v in found if isinstance(v, str) and not v.isdigit()]
    assert [(f, n, v) for f, n, v in literal if v not in REGISTRY] == []


def test_no_raise_names_an_http_status() -> None:
    assert [(f, n, v) for f, n, v in raised_codes() if isinstance(v, int)] == []


def test_the_rules_and_the_tournament_list_their_codes_from_the_registry() -> None:
    for code, meaning in (*rule_errors.CODES.items(), *tournament_errors.CODES.items()):
        assert REGISTRY[code].meaning == meaning
    assert {"must_follow_suit", "not_your_turn"} <= set(rule_errors.CODES)
    assert {"not_organizer", "registration_closed", "not_running"} <= set(tournament_errors.CODES)


def test_a_lobby_error_takes_its_status_and_fields_from_the_registry() -> None:
    e = LobbyError("rate_limited", "slow down", **{RETRY_AFTER: 7})
    assert (e.status, e.code, e.retry_after) == (429, "rate_limited", 7)
    assert LobbyError("no_team", "no such team").status == 404
    assert LobbyError("queue_cooldown", "later", until=5).until == 5
    with pytest.raises(UnknownCode):
        LobbyError("no_such_code", "?")
    with pytest.raises(TypeError):
        LobbyError("table_full", "full", until=5)  # table_full carries no until


def test_every_entry_has_a_status_a_meaning_and_a_message() -> None:
    for code, entry in REGISTRY.items():
        assert entry.code == code and code.isidentifier() and code.islower()
        assert 400 <= entry.status <= 599 and entry.meaning and entry.message
        assert lookup(code) is entry


def test_a_code_from_another_service_is_one_a_client_may_see() -> None:
    assert from_service("not_organizer") == "not_organizer"
    assert from_service("400") == "bad_request"
    assert from_service("500") == "internal_error"
    assert from_service("NoSuchThing") == "internal_error"


def test_every_503_tells_when_to_try_again() -> None:
    for code in ("game_unavailable", "tournaments_unavailable", "unavailable"):
        answer = error_response(None, LobbyError(code, "not now"))  # type: ignore[arg-type]
        assert answer.status_code == 503 and int(answer.headers["retry-after"]) > 0
    answer = error_response(None, LobbyError("rate_limited", "wait", retry_after=7))  # type: ignore[arg-type]
    assert (answer.status_code, answer.headers["retry-after"]) == (429, "7")
    assert "retry-after" not in error_response(None, LobbyError("table_full", "full")).headers  # type: ignore[arg-type]


def test_every_frame_type_declares_registered_codes() -> None:
    tags = {c.__struct_config__.tag for c in ws.ClientMessage.__args__}
    assert tags == set(ws.FRAME_ERRORS)
    for tag in tags:
        assert all(code in REGISTRY for code in ws.frame_errors(str(tag))), tag


def test_the_protocol_doc_tables_are_the_registry() -> None:
    """Run ``python -m schemas.errors.docs`` after changing a code, and commit the result."""
    text = errordocs.DOC.read_text()
    assert errordocs.BEGIN in text and errordocs.END in text
    assert errordocs.rewrite(text) == text
    assert errordocs.main(["--check"]) == 0
    for code in REGISTRY:
        assert f"| `{code}` |" in text, code


def test_every_code_named_in_schemas_codes_is_registered() -> None:
    named = {k: v for k, v in vars(codes).items() if k.isupper() and isinstance(v, str)}
    assert named and [v for v in named.values() if v not in REGISTRY] == []
