"""Encoding stored events, and upcasting old shapes on the way back.

The store is generic: it never imports the game's event module. It is handed
a registry of tagged msgspec Struct classes, each with a class-level schema
version, and a chain of upcasters for shapes that have changed since they were
stored. A stored event is never rewritten; an old version is lifted one step at
a time to the current class when read (a step with no upcaster only added fields with
defaults). A newer version than this code's is read ignoring the fields it does not
know, or is ``NewerEvent`` (schemas/versions.py has the rule).
"""

from __future__ import annotations

import typing
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import msgspec

from schemas.events import GameEvent
from schemas.tournaments.events import TournamentEvent
from schemas.versions import UnreadableVersion
from schemas.versions.upcasters import GAME_UPCASTERS, TOURNAMENT_UPCASTERS

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]


class UnknownEventType(LookupError):
    pass


class UpcastError(LookupError):
    pass


class NewerEvent(UpcastError, UnreadableVersion):
    """An event written by a newer version of the code that this one cannot read even
    ignoring the fields it does not know (schemas/versions.py): a typed error to log
    and pass over, never a crash."""

    def __init__(self, type_name: str, schema_version: int, current: int, detail: str) -> None:
        UnreadableVersion.__init__(self, "event", [f"{type_name}/{schema_version} (this code "
                                                   f"reads up to {current})"], detail)


@dataclass(frozen=True, slots=True)
class Encoded:
    type: str
    schema_version: int
    body: bytes


class EventRegistry:
    """Tagged Struct classes by tag, with their current schema version and upcasters."""

    def __init__(self, types: Iterable[type[msgspec.Struct]] | Any,
                 version_attr: str = "VERSION") -> None:
        classes = list(typing.get_args(types)) if typing.get_args(types) else list(types)
        self._version_attr = version_attr
        self._by_tag: dict[str, type[msgspec.Struct]] = {}
        self._decoders: dict[str, msgspec.msgpack.Decoder[Any]] = {}
        self._upcasters: dict[tuple[str, int], Upcaster] = {}
        self._encoder = msgspec.msgpack.Encoder()
        for cls in classes:
            config = cls.__struct_config__
            if not isinstance(config.tag, str):
                raise TypeError(f"{cls.__name__} is not a tagged Struct with a string tag")
            self._by_tag[config.tag] = cls
            self._decoders[config.tag] = msgspec.msgpack.Decoder(cls)

    def version_of(self, cls: type[msgspec.Struct]) -> int:
        return int(getattr(cls, self._version_attr, 1))

    def upcaster(self, type_name: str, from_version: int) -> Callable[[Upcaster], Upcaster]:
        """Register the step from ``from_version`` to ``from_version + 1`` of one type."""

        def register(fn: Upcaster) -> Upcaster:
            self._upcasters[(type_name, from_version)] = fn
            return fn

        return register

    def encode(self, event: msgspec.Struct) -> Encoded:
        cls = type(event)
        tag = cls.__struct_config__.tag
        if not isinstance(tag, str) or tag not in self._by_tag:
            raise UnknownEventType(f"{cls.__name__} is not registered")
        return Encoded(tag, self.version_of(cls), self._encoder.encode(event))

    def decode(self, type_name: str, schema_version: int, body: bytes) -> msgspec.Struct:
        cls = self._by_tag.get(type_name)
        if cls is None:
            raise UnknownEventType(f"no event type {type_name!r}")
        current = self.version_of(cls)
        if schema_version == current:
            return self._decoders[type_name].decode(body)
        if schema_version > current:  # a newer writer's: read what this code knows of it
            try:
                return self._decoders[type_name].decode(body)
            except msgspec.DecodeError as exc:
                raise NewerEvent(type_name, schema_version, current, str(exc)) from None
        return self.from_builtins(type_name, schema_version, msgspec.msgpack.decode(body))

    def from_builtins(self, type_name: str, schema_version: int,
                      data: dict[str, Any]) -> msgspec.Struct:
        """An event from plain data (an exported JSON line, say), upcast to today's shape."""
        cls = self._by_tag.get(type_name)
        if cls is None:
            raise UnknownEventType(f"no event type {type_name!r}")
        current = self.version_of(cls)
        bare = []  # steps with no upcaster: they only added fields, which take defaults
        for version in range(schema_version, current):
            step = self._upcasters.get((type_name, version))
            if step is None:
                bare.append(version)
            else:
                data = step(data)
        data[cls.__struct_config__.tag_field or "type"] = type_name
        try:
            return msgspec.convert(data, cls)
        except msgspec.ValidationError as exc:
            if schema_version > current:
                raise NewerEvent(type_name, schema_version, current, str(exc)) from None
            if bare:
                raise UpcastError(f"no upcaster for {type_name} v{bare[0]} -> v{bare[0] + 1}"
                                  f", and a field it lacks has no default: {exc}") from None
            raise


def _with(types: Any, upcasters: dict[tuple[str, int], Upcaster]) -> EventRegistry:
    registry = EventRegistry(types)
    for (type_name, version), step in upcasters.items():
        registry.upcaster(type_name, version)(step)
    return registry


def game_registry() -> EventRegistry:
    """The game events with every upcaster: the one decoder for stored and exported
    game logs, whichever service reads them."""
    return _with(GameEvent, GAME_UPCASTERS)


def tournament_registry() -> EventRegistry:
    """The tournament events with every upcaster, for the service and the lobby's feed."""
    return _with(TournamentEvent, TOURNAMENT_UPCASTERS)

