from __future__ import annotations

import pytest

from services.platform.settings import Settings, SettingsError, env_names, load


def test_settings_come_from_the_environment() -> None:
    s = load(Settings, {"DATABASE_URL": "postgresql://x", "NATS_URL": "nats://y",
                        "SPADES_HTTP_PORT": "9000", "SPADES_MIGRATE_ON_START": "false"})
    assert (s.database_url, s.nats_url, s.http_port, s.migrate_on_start) == (
        "postgresql://x", "nats://y", 9000, False)


def test_a_missing_setting_is_named() -> None:
    with pytest.raises(SettingsError, match=r"^setting NATS_URL is required$"):
        load(Settings, {"DATABASE_URL": "postgresql://x"})


def test_a_malformed_setting_is_named_with_the_reason() -> None:
    with pytest.raises(SettingsError, match=r"^setting SPADES_LOG_LEVEL is invalid"):
        load(Settings, {"DATABASE_URL": "x", "NATS_URL": "y", "SPADES_LOG_LEVEL": "loud"})


def test_settings_are_frozen() -> None:
    s = load(Settings, {"DATABASE_URL": "x", "NATS_URL": "y"})
    with pytest.raises(AttributeError):
        s.http_port = 1  # type: ignore[misc]


def test_every_field_has_an_environment_name_and_a_description() -> None:
    names = env_names(Settings)
    assert "DATABASE_URL" in names and "SPADES_NATS_PREFIX" in names
    assert all(names.values())
