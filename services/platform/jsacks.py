"""JetStream's acknowledgements of what one connection stored, counted down per call.

``connection.NatsClient.store`` publishes a call's messages, each with a reply
token of its own; the acknowledgements come back on the connection's reply
subscription and are handed here as they are read. A call's future holds how
many JetStream stored anew once every message was acknowledged, or the first
refusal, or a timeout; acknowledgements still on their way after that are
dropped."""

from __future__ import annotations

import asyncio
from typing import Any

import msgspec
import nats.errors
import nats.js.errors
from prometheus_client import Histogram

# How long a ``store`` call waited for JetStream: from its first message sent to its last
# acknowledgement, its refusal or its time-out (``outcome``).
ACK_WAIT = Histogram("spades_jetstream_ack_seconds",
                     "Time a publish waited for JetStream's acknowledgements, by outcome",
                     ["outcome"], buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                           0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0))
_ACKED, _REFUSED, _TIMED_OUT = (ACK_WAIT.labels(o) for o in ("acked", "refused", "timeout"))


class Stored:
    """One ``store`` call: its future and the tokens of its messages."""

    __slots__ = ("future", "new", "started", "timer", "tokens", "waiting")

    def __init__(self, future: asyncio.Future[int]) -> None:
        self.future = future
        self.started = future.get_loop().time()
        self.tokens: list[bytes] = []
        self.waiting = 0
        self.new = 0
        self.timer: asyncio.TimerHandle | None = None


class _Ack(msgspec.Struct):
    """JetStream's answer to a published message (the fields read here)."""

    duplicate: bool = False
    error: dict[str, Any] | None = None


_decoder = msgspec.json.Decoder(_Ack)


class Acks:
    """Every ``store`` call of one connection still waiting, by message token."""

    def __init__(self) -> None:
        self._calls: dict[bytes, Stored] = {}
        self.waiting = 0  # messages handed to JetStream, neither acknowledged nor given up

    def expect(self, stored: Stored, token: bytes) -> None:
        """A message of ``stored`` goes out with ``token`` as its reply's."""
        self._calls[token] = stored
        stored.tokens.append(token)
        self.waiting += 1

    def sent(self, stored: Stored, timeout: float) -> None:
        """Every message of the call went out: wait ``timeout`` seconds at most."""
        stored.waiting = len(stored.tokens)
        if not stored.waiting:
            self.settle(stored)
            return
        stored.timer = asyncio.get_running_loop().call_later(
            timeout, self.settle, stored, nats.errors.TimeoutError())

    def settle(self, stored: Stored, exc: BaseException | None = None) -> None:
        """The call is over: every message acknowledged, one refused, or the time up."""
        if stored.timer is not None:
            stored.timer.cancel()
        for token in stored.tokens:
            if self._calls.pop(token, None) is not None:
                self.waiting -= 1
        if stored.future.done():
            return
        waited = stored.future.get_loop().time() - stored.started
        if exc is None:
            _ACKED.observe(waited)
            stored.future.set_result(stored.new)
        else:
            (_TIMED_OUT if isinstance(exc, nats.errors.TimeoutError) else _REFUSED).observe(waited)
            stored.future.set_exception(exc)

    def take(self, token: bytes, data: bytes, headers: bytes | None) -> bool:
        """An answer read on the reply subscription; False when it is no acknowledgement
        of a call still waiting (a request's reply, say)."""
        stored = self._calls.pop(token, None)
        if stored is None:
            return False
        self.waiting -= 1
        if headers and headers.startswith(b"NATS/1.0 503"):  # no stream has the subject
            self.settle(stored, nats.js.errors.NoStreamResponseError())
            return True
        try:
            ack = _decoder.decode(data)
        except msgspec.DecodeError:
            self.settle(stored, nats.js.errors.APIError(description=f"not an ack: {data!r}"))
            return True
        if ack.error is not None:
            try:
                nats.js.errors.APIError.from_error(ack.error)  # raises its own kind
            except nats.js.errors.APIError as exc:
                self.settle(stored, exc)
            return True
        stored.new += not ack.duplicate
        stored.waiting -= 1
        if not stored.waiting:
            self.settle(stored)
        return True
