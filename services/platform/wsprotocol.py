"""uvicorn's WebSocket protocol, pausing its socket only when the app falls behind.

uvicorn stops reading a socket after every message a client sends and starts
again once the app has taken it: two changes to the event loop's selector (two
``epoll_ctl`` calls) per message, about 7% of a gateway's CPU in profiles, where
every command is a message. Here reading stops once ``BEHIND`` messages wait for
the app and starts again when the app has taken them all, so a client that
floods a socket still cannot grow its queue without bound, and one that sends a
command at a time is never paused at all.
"""

from __future__ import annotations

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

BEHIND = 16  # messages waiting for the app before the socket is read no more


class WebSocketProtocol(WebSocketsSansIOProtocol):
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
