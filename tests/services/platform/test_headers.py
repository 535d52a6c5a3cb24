"""The services' NATS client reads message headers exactly as nats-py's own does."""

from __future__ import annotations

import nats.aio.client
from hypothesis import given, settings
from hypothesis import strategies as st

from services.platform.connection import NatsClient

_BYTES = st.sampled_from([b"a", b"Z", b"-", b":", b" ", b"\t", b"\x1c", b"\x85", b"\xc3\xa9",
                          b"\xff", b"\r\n", b"\r", b"\n", b"1", b"Nats-Msg-Id"])


@settings(max_examples=400, deadline=None)
@given(parts=st.lists(_BYTES, max_size=40))
def test_header_lines_read_as_the_library_reads_them(parts: list[bytes]) -> None:
    raw = b"".join(parts)
    assert NatsClient._parse_header_lines(raw) == nats.aio.client.Client._parse_header_lines(raw)


def test_a_game_events_header_is_read() -> None:
    raw = b"Nats-Msg-Id: game-1:7\r\nNats-Expected-Stream: GAME\r\n\r\n"
    assert NatsClient._parse_header_lines(raw) == {"Nats-Msg-Id": "game-1:7",
                                               "Nats-Expected-Stream": "GAME"}
