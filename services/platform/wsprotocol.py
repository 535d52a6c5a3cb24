"""uvicorn's WebSocket protocol: pausing its socket only when the app falls behind,
and writing several messages at once past the ASGI layers.

uvicorn stops reading a socket after every message a client sends and starts
again once the app has taken it: two changes to the event loop's selector (two
``epoll_ctl`` calls) per message, about 7% of a gateway's CPU in profiles, where
every command is a message. Here reading stops once ``BEHIND`` messages wait for
the app and starts again when the app has taken them all, so a client that
floods a socket still cannot grow its queue without bound, and one that sends a
command at a time is never paused at all.

A gateway sends each socket every event of the games it follows, one message
each: through litestar's and uvicorn's ASGI ``send`` that is two wrapper
coroutines, the protocol's checks and one write to the socket per message. The
protocol offers the app ``send_texts`` in the scope's extensions (``SEND_TEXTS``):
the messages the app has ready, framed by the same ``websockets`` connection and
written to the socket at once; and ``write_texts`` (``WRITE_TEXTS``), the same
without waiting, for a caller with no task to wait in, which learns whether the
socket took them. It offers its own ``receive`` too (``RECEIVE``), so
each command a client sends skips litestar's wrapper around it. An app served
otherwise finds no such extensions and goes through ASGI as before.

The base class's methods extended or copied here are fingerprinted in
``tests/services/platform/test_library_internals.py``, which fails first when an
upgrade of uvicorn changes them.
"""

from __future__ import annotations

from collections.abc import Sequence

from uvicorn.protocols.utils import ClientDisconnected
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.exceptions import InvalidState
from websockets.http11 import Request

BEHIND = 16  # messages waiting for the app before the socket is read no more
SEND_TEXTS = "spades.websocket.send_texts"  # the scope extensions: see `send_texts`
WRITE_TEXTS = "spades.websocket.write_texts"  # and `write_texts`
RECEIVE = "spades.websocket.receive"  # and the ASGI receive, unwrapped


class WebSocketProtocol(WebSocketsSansIOProtocol):
    def handle_connect(self, event: Request) -> None:
        super().handle_connect(event)
        scope = getattr(self, "scope", None)  # none when the handshake was refused
        if scope is not None:  # the app's task is created but has not run yet
            scope["extensions"][SEND_TEXTS] = self.send_texts
            scope["extensions"][WRITE_TEXTS] = self.write_texts
            scope["extensions"][RECEIVE] = self.receive

    async def send_texts(self, texts: Sequence[str]) -> None:
        """Text messages in order, written to the socket at once once it may be written
        to; ``ClientDisconnected`` when the socket is gone or closing, as ``send`` says."""
        await self.writable.wait()
        if not self.write_texts(texts):
            raise ClientDisconnected()

    def write_texts(self, texts: Sequence[str]) -> bool:
        """``send_texts`` when the socket may be written to now, without a wait: for a
        caller with no task of its own to wait in. False, and nothing written, when
        the socket is gone, closing or held back by the client's reading."""
        if (self.disconnected or self.close_sent or not self.handshake_complete
                or not self.writable.is_set()):
            return False
        try:
            for text in texts:
                self.conn.send_text(text.encode())
        except InvalidState:  # closing: raised at the first text, before any is framed
            return False
        self.transport.write(b"".join(self.conn.data_to_send()))
        return True

    def send_receive_event_to_app(self) -> None:
        # The base class stops reading unless it already has: tell it it has, then
        # stop only when the app is ``BEHIND`` messages behind. ``receive`` starts
        # reading again once the queue is empty, as in the base class.
        paused, self.read_paused = self.read_paused, True
        super().send_receive_event_to_app()
        self.read_paused = paused
        if not paused and self.queue.qsize() >= BEHIND:
            self.read_paused = True
            self.transport.pause_reading()
