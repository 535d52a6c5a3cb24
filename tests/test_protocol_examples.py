"""Every JSON example in docs/protocol.md decodes as the type it illustrates, so the
examples cannot drift from ``schemas/``.

The document's convention (stated in its "About the examples" paragraph): a line
``<!-- examples: NAME -->`` names the type of the examples in the table or code block
right after it. NAME is a type in ``schemas/`` (``ws.ClientMessage``: decoded by the
frame's ``type`` tag; ``notes.Note`` by ``kind``), or ``routes``: each row of the table
names an HTTP route, and an example in the route's own cell or in the ``Body`` column
is the body that route reads, any other its answer, decoded as the types the route's
handler declares. An example is whole JSON; a sketch, not checked, names fields
without values, elides with ``...``, offers alternatives with ``|`` or holds a
placeholder in capitals (``PLAYER_ID``). Anything else that looks like JSON and is
not, and a JSON example under no marker, fails here.
"""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec
import pytest
from litestar.handlers import HTTPRouteHandler
from litestar.utils import join_paths

from services.lobby.http.routes import CONTROLLERS

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "protocol.md"
MARKER = re.compile(r"^<!-- examples: ([\w.]+) -->$")
SPAN = re.compile(r"`([^`]+)`")
ROUTE = re.compile(r"^(GET|POST|PATCH|PUT|DELETE) (/\S*)$")
TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\],:]|[^\s{}\[\],:"]+')
TAGGED = re.compile(r'^\{"(type|kind)":')  # a frame or a note: always whole JSON


@dataclass(frozen=True)
class Example:
    line: int
    text: str
    marker: str | None  # the type named for the table or block it sits in
    route: str | None = None  # in a ``routes`` table: the row's "METHOD /path"
    body: bool = False  # in a ``routes`` table: the request's body, not its answer

    def __str__(self) -> str:
        return f"docs/protocol.md:{self.line}: {self.text[:90]}"


def is_sketch(text: str) -> bool:
    """A sketch of a body, not an example: it elides (``...``), offers alternatives
    (``|``), holds a placeholder in capitals, or names a field with no value."""
    if TAGGED.match(text):
        return False
    if "..." in text or "|" in text or re.search(r"\b[A-Z][A-Z_]{2,}\b", text):
        return True
    tokens = TOKEN.findall(text)
    stack: list[str] = []
    for i, token in enumerate(tokens):
        if token in "{[":
            stack.append(token)
        elif token in "}]":
            stack = stack[:-1]
        elif (token.startswith('"') and stack[-1:] == ["{"] and tokens[i - 1] in "{,"
              and tokens[i + 1:i + 2] in ([","], ["}"])):
            return True  # an object's key followed by "," or "}": a field named, no value
    return False


def _cells(row: str) -> list[str]:
    """A table row's cells; a ``|`` escaped inside a code span stays in its cell."""
    return [c.strip() for c in re.split(r"(?<!\\)\|", row.strip().strip("|"))]


def _objects(text: str) -> Iterator[str]:
    """The code spans of ``text`` that read as a JSON object or a sketch of one."""
    for span in SPAN.findall(text):
        span = span.replace("\\|", "|").strip()
        if span.startswith("{") and '"' in span:
            yield span


def examples(lines: list[str]) -> Iterator[Example]:
    """Every example or sketch of the document, with the marker of its table or block."""
    pending: str | None = None  # a marker waiting for the table or block after it
    marker: str | None = None
    header: list[str] = []
    block: list[str] | None = None
    for n, line in enumerate(lines, 1):
        if block is not None:  # inside a fenced block: one example, whole
            if line.startswith("```"):
                text = "\n".join(block).strip()
                if text.startswith("{"):
                    yield Example(n - len(block), text, marker)
                block = None
            else:
                block.append(line)
            continue
        if found := MARKER.match(line.strip()):
            pending = found.group(1)
        elif line.startswith("```"):
            block, marker, pending = [], pending, None
        elif line.startswith("|"):
            cells = _cells(line)
            if not header:
                header, marker, pending = [c.lower() for c in cells], pending, None
            elif not set("".join(cells)) <= set("-: "):
                route = next((m.group(0) for s in SPAN.findall(cells[0])
                              if (m := ROUTE.match(s.strip()))), None)
                for i, cell in enumerate(cells):
                    for text in _objects(cell):
                        yield Example(n, text, marker, route,
                                      body=i == 0 or header[i:i + 1] == ["body"])
        else:
            header = []
            for text in _objects(line):
                yield Example(n, text, None)


def _handlers() -> dict[tuple[str, str], Callable[..., Any]]:
    """The lobby's route handlers by (method, path with its parameters as ``{}``)."""
    found: dict[tuple[str, str], Callable[..., Any]] = {}
    for controller in CONTROLLERS:
        for handler in vars(controller).values():
            if isinstance(handler, HTTPRouteHandler):
                for path in handler.paths:
                    for method in handler.http_methods:
                        prefix = vars(controller).get("path", "/")
                        found[(method, _path(join_paths([prefix, path])))] = handler.fn
    return found


def _path(path: str) -> str:
    return re.sub(r"\{[^}]*\}", "{}", path.split("?", 1)[0])


def _annotation(fn: Callable[..., Any], name: str) -> Any:
    """One annotation of a handler, read in its module (they are strings there); only that
    one, since the others may name what only the route factory's scope holds."""
    return eval(fn.__annotations__[name], fn.__globals__)


class Unnamed(LookupError):
    """An example whose type the document does not name, or names wrongly."""


def type_of(example: Example, handlers: dict[tuple[str, str], Callable[..., Any]]) -> Any:
    if not example.marker:
        raise Unnamed("name its type (<!-- examples: NAME --> before its table or block)")
    if example.marker != "routes":
        module, _, name = example.marker.rpartition(".")
        found = getattr(importlib.import_module(f"schemas.{module}"), name, None)
        if found is None:
            raise Unnamed(f"no type {example.marker} in schemas/")
        return found
    if not example.route:
        raise Unnamed("a row of a routes table names its route first")
    method, path = example.route.split(" ", 1)
    fn = handlers.get((method, _path(path)))
    if fn is None:
        raise Unnamed(f"no route {example.route}")
    which = "data" if example.body else "return"
    if which not in fn.__annotations__:
        raise Unnamed(f"{example.route} declares no {'body' if example.body else 'answer'}")
    return _annotation(fn, which)


def unknown(shown: Any, decoded: Any, path: str = "$") -> Iterator[str]:
    """The keys of an example its type does not have (a server frame's Struct ignores
    them when decoding, so a field renamed in ``schemas/`` would pass unseen)."""
    if isinstance(shown, dict) and isinstance(decoded, dict):
        for key, value in shown.items():
            if key not in decoded:
                yield f"{path}.{key}"
            else:
                yield from unknown(value, decoded[key], f"{path}.{key}")
    elif isinstance(shown, list) and isinstance(decoded, list):
        for i, (a, b) in enumerate(zip(shown, decoded, strict=False)):
            yield from unknown(a, b, f"{path}[{i}]")


def test_the_document_states_the_convention_the_test_reads() -> None:
    assert "<!-- examples: NAME -->" in DOC.read_text()


def test_every_json_example_decodes_as_the_type_it_illustrates() -> None:
    handlers = _handlers()
    checked, wrong = 0, []
    for example in examples(DOC.read_text().splitlines()):
        try:
            json.loads(example.text)
        except ValueError:
            if is_sketch(example.text):
                continue
            wrong.append(f"{example}: not JSON")
            continue
        try:
            decoded = msgspec.json.decode(example.text, type=type_of(example, handlers),
                                          strict=True)
        except (Unnamed, msgspec.ValidationError) as exc:
            wrong.append(f"{example}: {exc}")
        else:
            wrong += [f"{example}: {path} is no field of its type"
                      for path in unknown(json.loads(example.text), msgspec.to_builtins(decoded))]
        checked += 1
    assert not wrong, "\n".join(wrong)
    assert checked >= 40  # the frames, notes and bodies: a parser that found none fails


@pytest.mark.parametrize(("text", "sketch"), [
    ('{"token", "player_id", "name"}', True),
    ('{"rules": "house" | {"preset": "house"}}', True),
    ('{"partner": PLAYER_ID, "name": "Aces"}', True),
    ('{"type": "snapshot", "view": {...}}', False),
    ('{"seat": 2,}', False),
    ('{"cards": ["2C", "3D", "4H"], "name": "Ada"}', False),
    ('{"game_id", "spectate": true, "code"}', True),
])
def test_only_a_sketch_is_spared(text: str, sketch: bool) -> None:
    assert is_sketch(text) is sketch
