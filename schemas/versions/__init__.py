"""Schema versions: what lets two versions of the code run side by side during a roll.

Every shape that crosses a process's edge carries the version of its type:

- an event, its ``schema_version`` (a column of the event store, a field of the
  envelope it travels in on JetStream, ``schemas/bus.py``);
- a bus message (a request, its reply, a publication), the header ``Spades-Schema``,
  whose value is the label ``label`` makes: ``GameRequest/1 PlayCard/1`` names the
  body's type and each tagged value it holds directly (a game command, an event), so a
  command carries its own version inside the request that carries it;
- a WebSocket frame, its field ``v`` (``schemas/ws.py``).

A type's version is its class constant ``VERSION`` (1 when it has none; for a frame, the
default of its ``v``) and counts the changes of its shape, the shapes it holds included.
The compatibility rule, the same for all four (docs/operators.md, "Upgrading"): a reader
reads its own version and every older one (older shapes lifted by upcasters, or given the
defaults of the fields added since); it reads a newer version of a type it knows by
ignoring the fields it does not know; and what it still cannot read is
``UnreadableVersion``, answered or logged as a typed error (``unsupported_version``),
never a crash. A message with no version at all was written before versions were
carried (0.2.0 and earlier) and is version 1 of each type.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from typing import Any

import msgspec

HEADER = "Spades-Schema"
CODE = "unsupported_version"


class UnreadableVersion(ValueError):
    """A message this code cannot read because it was written by a newer version (or
    names a type this code has never heard of)."""

    def __init__(self, what: str, parts: list[str], detail: str = "") -> None:
        super().__init__(f"{what}: this code cannot read {', '.join(parts)}"
                         + (f" ({detail})" if detail else ""))
        self.parts = parts


def name_of(cls: type[Any]) -> str:
    """A type's name in a label: its tag when it has a string tag, else its class name."""
    config = getattr(cls, "__struct_config__", None)
    tag = getattr(config, "tag", None)
    return tag if isinstance(tag, str) else cls.__name__


_versions: dict[type[Any], int] = {}


def version_of(cls: type[Any]) -> int:
    """``VERSION``, else the default of a frame's ``v``, else 1."""
    got = _versions.get(cls)
    if got is None:
        got = 1
        if hasattr(cls, "VERSION"):
            got = int(cls.VERSION)
        elif "v" in getattr(cls, "__struct_fields__", ()):
            (v,) = (f for f in msgspec.structs.fields(cls) if f.name == "v")
            got = v.default if isinstance(v.default, int) else 1
        _versions[cls] = got
    return got


def label(body: msgspec.Struct) -> str:
    """``Type/version`` of the body and of each tagged Struct among its fields."""
    own, inner = _plan(type(body))
    if not inner:
        return own
    parts = [own]
    for field in inner:
        value = getattr(body, field)
        if isinstance(value, msgspec.Struct) and isinstance(type(value).__struct_config__.tag,
                                                            str):
            parts.append(_plan(type(value))[0])
    return " ".join(parts)


_plans: dict[type[Any], tuple[str, tuple[str, ...]]] = {}


def _plan(cls: type[Any]) -> tuple[str, tuple[str, ...]]:
    """A type's own part of a label, and its fields that may hold a tagged Struct (read
    from its annotations once)."""
    plan = _plans.get(cls)
    if plan is None:
        inner: tuple[str, ...] = ()
        if hasattr(cls, "__struct_fields__"):
            info = msgspec.inspect.type_info(cls)
            assert isinstance(info, msgspec.inspect.StructType)
            inner = tuple(f.name for f in info.fields if _tagged(f.type))
        plan = _plans[cls] = (f"{name_of(cls)}/{version_of(cls)}", inner)
    return plan


def _tagged(kind: msgspec.inspect.Type) -> bool:
    """Whether a field of this type may hold a tagged Struct (a generic one may)."""
    if isinstance(kind, msgspec.inspect.UnionType):
        return any(_tagged(t) for t in kind.types)
    if isinstance(kind, msgspec.inspect.AnyType):
        return True
    return isinstance(kind, msgspec.inspect.StructType) and isinstance(kind.tag, str)


def headers(body: msgspec.Struct, more: Mapping[str, str] | None = None) -> dict[str, str]:
    """The headers a bus message carries: its label, beside any others."""
    return {**(more or {}), HEADER: label(body)}


def parse(text: str | None) -> dict[str, int]:
    """A label read back: type name -> version (empty for no label: version 1 of all)."""
    out: dict[str, int] = {}
    for part in (text or "").split():
        name, _, version = part.rpartition("/")
        if name and version.isdigit():
            out[name] = int(version)
    return out


def _structs(cls: type[Any]) -> Iterator[type[Any]]:
    for sub in cls.__subclasses__():
        yield sub
        yield from _structs(sub)


@functools.cache
def _known() -> dict[str, int]:
    """Every versioned type of ``schemas`` this code holds, by its name in a label."""
    import schemas.bus
    import schemas.gamebus
    import schemas.notes
    import schemas.tournaments.events
    import schemas.ws  # noqa: F401

    out: dict[str, int] = {}
    for cls in _structs(msgspec.Struct):
        if cls.__module__.startswith("schemas."):
            name = name_of(cls)
            out[name] = max(out.get(name, 0), version_of(cls))
    return out


def known(name: str) -> int | None:
    """The newest version of the type this code reads (None: a type it does not know)."""
    return _known().get(name)


def beyond(text: str | None) -> list[str]:
    """The parts of a label this code cannot vouch for: a newer version of a type it
    knows, or a type it does not know at all ([] when it knows them all)."""
    out = []
    for name, version in parse(text).items():
        mine = known(name)
        if mine is None:
            out.append(f"{name}/{version} (an unknown type)")
        elif version > mine:
            out.append(f"{name}/{version} (this code reads up to {mine})")
    return out


def decode_failed(what: str, text: str | None, exc: Exception) -> Exception:
    """What a reader raises when a message did not decode: ``UnreadableVersion`` when
    its label says a newer writer made it, else the decoding error itself."""
    parts = beyond(text)
    return UnreadableVersion(what, parts, str(exc)) if parts else exc
