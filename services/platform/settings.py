"""Settings: one frozen struct per service, read once from the environment.

Every field carries its documentation in ``msgspec.Meta(description=...)`` so
`spades settings`, the deploy check and the reader see the same text. The
environment name of a field is ``SPADES_<FIELD>``, except the two server URLs,
which keep the names every tool already knows.
"""

from __future__ import annotations

import os
import re
import socket
import typing
from collections.abc import Mapping
from typing import Annotated, Any, NamedTuple, TypeVar

import msgspec

UNPREFIXED = {"database_url": "DATABASE_URL", "nats_url": "NATS_URL"}


class StartupError(RuntimeError):
    """Start-up cannot go on; the message is the one line the operator sees."""


class SettingsError(ValueError):
    """A setting is missing or malformed; the message is one line naming it."""


def _default_instance() -> str:
    return f"{socket.gethostname()}-{os.getpid()}"


class Settings(msgspec.Struct, frozen=True, kw_only=True):
    database_url: Annotated[str, msgspec.Meta(
        description="PostgreSQL URL; the only source of truth.")]
    nats_url: Annotated[str, msgspec.Meta(
        description="NATS URL(s), comma separated; JetStream must be enabled.")]
    nats_prefix: Annotated[str, msgspec.Meta(
        description="Prefix of every subject and JetStream stream name; isolates "
                    "test runs and side-by-side installs on one NATS.")] = ""
    http_host: Annotated[str, msgspec.Meta(
        description="Address the HTTP server (API, health, metrics) binds: this machine "
                    "only by default; 0.0.0.0 (all addresses) in a container or behind a "
                    "balancer.")] = "127.0.0.1"
    http_port: Annotated[int, msgspec.Meta(
        ge=0, le=65535, description="Port of the HTTP server (API, health, metrics).")] = 8000
    log_level: Annotated[str, msgspec.Meta(
        pattern="^(debug|info|warning|error)$",
        description="Lowest log level written: debug, info, warning or error.")] = "info"
    db_pool_min: Annotated[int, msgspec.Meta(
        ge=0, description="Connections the Postgres pool keeps open.")] = 1
    db_pool_max: Annotated[int, msgspec.Meta(
        ge=1, description="Most connections the Postgres pool opens.")] = 10
    shutdown_grace_seconds: Annotated[float, msgspec.Meta(
        gt=0, description="Time allowed for in-flight work after SIGTERM.")] = 10.0
    drain_seconds: Annotated[float, msgspec.Meta(
        ge=0, description="After SIGTERM, how long /readyz answers 503 while the service "
        "still serves, before it hands its work on and stops: the time a load balancer "
        "takes to see it (its readiness probe's period times its failure threshold).")] = 0.0
    migrate_on_start: Annotated[bool, msgspec.Meta(
        description="Apply this service's migrations at start-up.")] = True
    instance_id: Annotated[str, msgspec.Meta(
        description="Name of this copy in logs and leases; host and pid by default.")] = ""
    js_ack_wait_seconds: Annotated[float, msgspec.Meta(
        gt=0, description="JetStream ack wait of this service's consumers; above the "
                          "slowest handler.")] = 30.0
    js_max_deliver: Annotated[int, msgspec.Meta(
        ge=2, description="Deliveries of one message before it goes to the dead-letter "
                          "table.")] = 5
    js_replicas: Annotated[int, msgspec.Meta(
        ge=1, le=5, description="Replicas of each JetStream stream; 3 on a NATS cluster.")] = 1
    js_duplicate_window_seconds: Annotated[float, msgspec.Meta(
        gt=0, description="JetStream de-duplication window; longer than the outbox's "
                          "retry horizon.")] = 600.0


S = TypeVar("S", bound=Settings)


def env_name(field: str) -> str:
    return UNPREFIXED.get(field, f"SPADES_{field.upper()}")


def env_names(cls: type[Settings]) -> dict[str, str]:
    """Environment variable name -> field description, for docs and deploy checks."""
    out: dict[str, str] = {}
    hints = typing.get_type_hints(cls, include_extras=True)
    for field in msgspec.structs.fields(cls):
        metas = [m for m in getattr(hints[field.name], "__metadata__", ())
                 if isinstance(m, msgspec.Meta)]
        out[env_name(field.name)] = next((m.description for m in metas if m.description), "")
    return out


class Described(NamedTuple):
    """One line of `spades settings`: a setting, its default, the value the environment
    puts in force, and what it means."""

    name: str
    default: str
    in_force: str
    meaning: str


REQUIRED = "(required)"  # a setting with no default
NOT_SET = "(not set)"  # ... that the environment does not give either
HIDDEN = "(set, hidden)"  # a secret's value is never printed
_CREDENTIALS = re.compile(r"(//[^:/@,\s]+:)[^@/,\s]*@")


def describe(cls: type[Settings], environ: Mapping[str, str] | None = None) -> list[Described]:
    """Every setting of ``cls`` with its default and the value in force, read from
    ``environ`` as ``load`` reads it (a value ``load`` would refuse says why). Secrets and
    the passwords inside URLs are not shown."""
    environ = os.environ if environ is None else environ
    hints = typing.get_type_hints(cls, include_extras=True)
    meanings = env_names(cls)
    rows = []
    for field in msgspec.structs.fields(cls):
        name = env_name(field.name)
        if field.default is not msgspec.NODEFAULT:
            default = _shown(field.default)
        elif field.default_factory is not msgspec.NODEFAULT:
            default = _shown(field.default_factory())
        else:
            default = REQUIRED
        if name not in environ:
            in_force = NOT_SET if default == REQUIRED else default
        else:
            try:
                value = msgspec.convert(environ[name], hints[field.name], strict=False)
            except msgspec.ValidationError as exc:
                in_force = f"invalid: {exc}"
            else:
                in_force = HIDDEN if "secret" in field.name and value else _shown(value)
        rows.append(Described(name, default, in_force, meanings[name]))
    return rows


def _shown(value: object) -> str:
    """A value as the environment would spell it, passwords in URLs masked."""
    if isinstance(value, str):
        return _CREDENTIALS.sub(r"\1***@", value) if value else '""'
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


def load(cls: type[S], environ: Mapping[str, str] | None = None, **overrides: Any) -> S:
    environ = os.environ if environ is None else environ
    raw: dict[str, Any] = {}
    for field in msgspec.structs.fields(cls):
        name = env_name(field.name)
        if name in environ:
            raw[field.name] = environ[name]
    raw.update(overrides)
    if not raw.get("instance_id"):
        raw["instance_id"] = _default_instance()
    try:
        return msgspec.convert(raw, cls, strict=False)
    except msgspec.ValidationError as exc:
        text = str(exc)
        field_name = text.rsplit("$.", 1)[-1].strip("`") if "$." in text else ""
        if text.startswith("Object missing required field"):
            field_name = text.split("`")[1]
            raise SettingsError(f"setting {env_name(field_name)} is required") from None
        reason = text.split(" - at ")[0]
        raise SettingsError(f"setting {env_name(field_name)} is invalid: {reason}") from None
