"""The two places the platform leans on a library's private parts, held to the code
they were written against.

``services/platform/connection.py`` (``NatsClient``) overrides nats-py's
``_process_msg``, ``_remove_sub`` and ``_init_request_sub`` and calls a few more of its
private methods; its docstring says what each buys, measured (a tenth of a gateway's
CPU for direct subscriptions, a sixth of a game worker's for ``store``).
``services/platform/wsprotocol.py`` subclasses uvicorn's sans-io WebSocket protocol
(about 7% of a gateway's CPU, and the batched writes). Their behaviour is tested in
``test_natsclient.py``, ``test_headers.py`` and ``test_wsprotocol.py``; this file fails
first, and says where to look, when an upgrade changes the code underneath: each
private method the overrides replace or call is fingerprinted, and each private
attribute they read must still be set by the library.

After an upgrade that trips it: read the named method in the new library, check the
override still does what the library's own does (or drop the override), run the
behaviour tests, then record the new fingerprint here.
"""

from __future__ import annotations

import hashlib
import inspect
from importlib.metadata import version

import nats.aio.client
import nats.aio.subscription
import nats.protocol.parser
import pytest
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

PINNED = {"nats-py": "2.16.0", "uvicorn": "0.54.0"}

# What each fingerprint covers, and why the platform depends on it.
NATS_METHODS = {
    # replaced: messages of direct subscriptions and replies are handed over here
    "_process_msg": "6cff75947e97717a",
    # replaced: forgets a direct subscription's handler with the subscription
    "_remove_sub": "0791939ce078f393",
    # replaced: the reply subscription whose messages `_on_reply` takes
    "_init_request_sub": "14571cd9117edb1c",
    # called: a reply's headers read and its message built as the library does
    "_process_headers": "fe656f61147df989",
    "_build_message": "13cbe7b7f8cbe0fb",
    # called: `store` writes HPUB lines and flushes as `publish` does
    "_send_command": "ed57e8e86389cf94",
    "_flush_pending": "317c8d7ef54b90b7",
    # extended: the buffer is written ahead of the PING (`flush` waits for all before it)
    "_send_ping": "d57b2f820443afb4",
    # copied into `_send_ping`: how the flusher writes the buffer
    "_flusher": "43957ffb357d6d94",
    # replaced in part: `request`'s answers (reply, NoResponders, Timeout) are copied
    "request": "5b1b97e620daed80",
}
NATS_ATTRIBUTES = ("_resp_sub_prefix", "_inbox_prefix", "_nuid", "_max_payload",
                   "_max_pending_size", "_pending_data_size", "_flush_queue", "_reading_task",
                   "_pending", "_transport", "_pongs")
# The parser calls `_process_msg` with (sid, subject, reply, data, headers).
PARSER = "7d6165f1766cccd1"
UVICORN_METHODS = {
    # extended: the scope's extensions are added after the handshake
    "handle_connect": "fc648c2161ff8e13",
    # extended: reading paused only when the app is behind
    "send_receive_event_to_app": "a2b10de91477dc1d",
    # offered to the app as is, and `send`'s checks copied into `write_texts`
    "receive": "1dc0e715390021a1",
    "send": "d4919ed760ce9f7b",
}
UVICORN_ATTRIBUTES = ("read_paused", "queue", "writable", "conn", "transport", "disconnected",
                      "close_sent", "handshake_complete", "scope")


def fingerprint(obj: object) -> str:
    return hashlib.sha256(inspect.getsource(obj).encode()).hexdigest()[:16]  # type: ignore[arg-type]


@pytest.mark.parametrize(("package", "pinned"), sorted(PINNED.items()))
def test_the_libraries_are_the_versions_the_overrides_were_written_against(
        package: str, pinned: str) -> None:
    assert version(package) == pinned, (
        f"{package} is {version(package)}, the overrides were checked against {pinned}")


@pytest.mark.parametrize(("name", "expected"), sorted(NATS_METHODS.items()))
def test_nats_py_private_methods_the_client_overrides_or_calls_are_unchanged(
        name: str, expected: str) -> None:
    got = fingerprint(getattr(nats.aio.client.Client, name))
    assert got == expected, (
        f"nats-py's Client.{name} changed: re-read services/platform/connection.py against it")


def test_nats_py_parser_hands_messages_over_as_the_override_expects() -> None:
    assert fingerprint(nats.protocol.parser.Parser.parse) == PARSER, (
        "nats-py's parser changed: check how it calls _process_msg")


def test_nats_py_still_sets_the_private_attributes_the_client_reads() -> None:
    source = inspect.getsource(nats.aio.client.Client)
    missing = [a for a in NATS_ATTRIBUTES if f"self.{a}" not in source]
    sub = inspect.getsource(nats.aio.subscription.Subscription)
    missing += [f"Subscription.{a}" for a in ("_id", "_pending_queue") if f"self.{a}" not in sub]
    assert not missing, missing


@pytest.mark.parametrize(("name", "expected"), sorted(UVICORN_METHODS.items()))
def test_uvicorn_protocol_methods_the_subclass_extends_are_unchanged(
        name: str, expected: str) -> None:
    got = fingerprint(getattr(WebSocketsSansIOProtocol, name))
    assert got == expected, (
        f"uvicorn's WebSocketsSansIOProtocol.{name} changed: "
        "re-read services/platform/wsprotocol.py against it")


def test_uvicorn_still_sets_the_attributes_the_subclass_reads() -> None:
    source = inspect.getsource(WebSocketsSansIOProtocol)
    missing = [a for a in UVICORN_ATTRIBUTES if f"self.{a}" not in source]
    assert not missing, missing
