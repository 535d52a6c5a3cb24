"""Rules as a table or a match asks for them: a preset name, or a preset with overrides."""

from __future__ import annotations

from typing import Any

import msgspec

from engine.presets import RulesError, resolve
from services.lobby.base.errors import LobbyError


def rules_of(spec: str | dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """(preset, every option) of a valid spec; ``bad_rules`` otherwise."""
    try:
        rules = resolve(spec)
    except RulesError as exc:
        raise LobbyError("bad_rules", str(exc)) from None
    return rules.preset, msgspec.to_builtins(rules)
