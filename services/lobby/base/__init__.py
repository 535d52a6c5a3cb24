"""What every room of the lobby stands on: its one error type (``errors``), its settings,
rule presets by name (``rulesets``), rate limits (``throttle``), the clock, and what the
rooms' stores share (``store``). The lowest room: it imports only ``schemas``, the engine's
presets and the platform.
"""
