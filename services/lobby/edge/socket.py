"""The WebSocket transport of ``/v1/ws``: handshake checks, frame decoding, writing.

The handshake is refused before ``accept`` when the ``Origin`` is not allowed
(cross-site WebSocket hijacking) or the ``token`` query parameter is missing,
forged or expired. After that, every inbound frame is size-checked, rate
limited and decoded here; a bad one gets an ``error`` frame and the socket
stays open. ``LobbyError`` becomes an ``error`` frame in this one place.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, cast
from urllib.parse import urlsplit

import msgspec
from litestar import WebSocket, websocket
from litestar.types import WebSocketSendEvent

from schemas import versions, ws
from services.lobby.accounts.auth import Tokens
from services.lobby.base.errors import LobbyError
from services.lobby.edge.gateway import Conn, Gateway
from services.lobby.edge.outbox import Direct
from services.platform import db, logs
from services.platform.wsprotocol import RECEIVE, SEND_TEXTS, WRITE_TEXTS

_log = logs.get("gateway")
_decoder = msgspec.json.Decoder(ws.ClientMessage)


_encoder = msgspec.json.Encoder()

CLOSE_POLICY = 1008
CLOSE_MOVING = 1012  # "service restart": this copy is draining, connect again
CLOSE_EXPIRED = 4401
CLOSE_TOO_MANY = 4429


def origin_allowed(origin: str | None, host: str | None, allowed: frozenset[str]) -> bool:
    """No Origin (not a browser), the page's own origin, or one on the allowlist."""
    if origin is None:
        return True
    if "*" in allowed or origin in allowed:
        return True
    return bool(host) and urlsplit(origin).netloc == host


class _Versioned(msgspec.Struct):
    """What a frame that did not decode says of its type and version."""

    type: str = ""
    v: int = 1


def decode_error(exc: msgspec.DecodeError, data: bytes = b"") -> LobbyError:
    text = str(exc)
    if isinstance(exc, msgspec.ValidationError):
        with contextlib.suppress(msgspec.DecodeError):
            said = msgspec.json.decode(data, type=_Versioned)
            mine = versions.known(said.type)
            if mine is not None and said.v > mine:  # a newer client's frame: say so
                return LobbyError(versions.CODE, f"{said.type} v{said.v}: this server "
                                  f"reads frames up to v{mine} ({text})")
    if not isinstance(exc, msgspec.ValidationError):
        return LobbyError("bad_json", "the frame is not a JSON object")
    if "`$.type`" in text or "missing required field `type`" in text:
        return LobbyError("unknown_type", f"unknown or missing frame type: {text}")
    if text.startswith("Expected `object`"):
        return LobbyError("bad_frame", "a frame is a JSON object with a type")
    return LobbyError("bad_field", text)


def handler(gateway: Gateway, tokens: Tokens, allowed_origins: frozenset[str],
            max_frame_bytes: int) -> Any:
    @websocket("/v1/ws")
    async def serve(socket: WebSocket[Any, Any, Any]) -> None:
        if not origin_allowed(socket.headers.get("origin"), socket.headers.get("host"),
                              allowed_origins):
            await socket.close(code=CLOSE_POLICY, reason="origin not allowed")
            return
        try:
            claims = tokens.check(socket.query_params.get("token"))
        except LobbyError as exc:
            await socket.close(code=CLOSE_EXPIRED, reason=exc.code)
            return
        if gateway.draining:  # accepted only to say why: this copy is going away
            await socket.accept()
            await socket.close(code=CLOSE_MOVING, reason="moving")
            return
        await socket.accept()
        try:
            conn = gateway.connect(claims)
        except LobbyError as exc:
            await socket.send_text(_encoder.encode(
                ws.Error(code=exc.code, message=exc.message)).decode())
            await socket.close(code=CLOSE_TOO_MANY, reason=exc.code)
            return
        _log.info("socket_open", player_id=claims.player_id)
        writer = asyncio.create_task(_write(socket, conn))
        expiry = asyncio.create_task(_expire(conn, claims.expires_at))
        try:
            await _read(socket, conn, gateway, max_frame_bytes)
        finally:
            gateway.disconnect(conn)
            expiry.cancel()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(writer, 2.0)
            writer.cancel()
            _log.info("socket_closed", player_id=claims.player_id)

    return serve


async def _expire(conn: Conn, expires_at: int) -> None:
    await asyncio.sleep(max(0.0, expires_at - time.time()))
    conn.send(ws.Error(code="token_expired", message="the token has expired; sign in again"))
    conn.expired = True
    conn.close()


def _offered(socket: WebSocket[Any, Any, Any], extension: str) -> object:
    """What the server offers under ``extension`` in the scope, or None."""
    return (socket.scope.get("extensions") or {}).get(extension)


async def _write(socket: WebSocket[Any, Any, Any], conn: Conn) -> None:
    # Every frame waiting, in one write, when the server offers it (services/platform/
    # wsprotocol.py); otherwise the ASGI send event itself, one per frame (``send_text``
    # adds two coroutines per frame that only build this dict). While this task sleeps,
    # the outbox writes what comes straight to the socket when the server lets it.
    send_texts = cast(Callable[[list[str]], Awaitable[None]] | None,
                      _offered(socket, SEND_TEXTS))
    send, outbox = socket.send, conn.outbox
    outbox.direct = cast(Direct | None, _offered(socket, WRITE_TEXTS))
    try:
        while True:
            frames = await outbox.get_all()
            texts = [f for f in frames if f is not None]  # None: the end, always last
            if send_texts is not None:
                if texts:
                    await send_texts(texts)
            else:
                for data in texts:
                    event: WebSocketSendEvent = {"type": "websocket.send", "bytes": None,
                                                 "text": data}
                    await send(event)
            if len(texts) < len(frames):
                break
    except Exception:
        conn.closed = True
        return
    finally:
        outbox.direct = None
    with contextlib.suppress(Exception):
        await socket.close(code=CLOSE_EXPIRED if conn.expired
                           else CLOSE_MOVING if conn.moving else 1000)


async def _read(socket: WebSocket[Any, Any, Any], conn: Conn, gateway: Gateway,
                max_frame_bytes: int) -> None:
    # The server's own receive when it offers it (services/platform/wsprotocol.py):
    # litestar's wrapper only notes the state this loop reads from each message.
    receive = cast(Callable[[], Awaitable[Mapping[str, Any]]],
                   _offered(socket, RECEIVE) or socket.receive)
    while not conn.closed:
        message = await receive()
        if message["type"] == "websocket.disconnect":
            return
        text: str | None = message.get("text")
        data: bytes = text.encode() if text is not None else message.get("bytes") or b""
        if conn.rate_limited(data):
            continue
        if len(data) > max_frame_bytes:
            conn.send(ws.Error(code="frame_too_large",
                               message=f"frames are at most {max_frame_bytes} bytes"))
            continue
        if text is None:
            conn.send(ws.Error(code="bad_frame", message="send text frames of JSON"))
            continue
        command_id = frame_type = ""
        try:
            try:
                frame = _decoder.decode(data)
            except msgspec.DecodeError as exc:
                raise decode_error(exc, data) from None
            command_id = getattr(frame, "command_id", "")
            frame_type = str(type(frame).__struct_config__.tag)
            conn.busy = True
            await gateway.handle(conn, frame)
        except LobbyError as exc:
            if frame_type and exc.code not in ws.frame_errors(frame_type):
                # A code the frame does not declare (schemas/ws.py FRAME_ERRORS): the
                # client still gets it; the declaration is what needs fixing.
                _log.error("undeclared_error_code", frame_type=frame_type, code=exc.code)
            conn.send(ws.Error(code=exc.code, message=exc.message, command_id=command_id,
                               until=exc.until))
        except db.AWAY as exc:
            _log.warning("frame_database_away", player_id=conn.claims.player_id,
                         error=repr(exc))
            conn.send(ws.Error(code="unavailable", message="the store is not answering now; "
                               "send the frame again shortly", command_id=command_id))
        except Exception as exc:
            _log.exception("frame_failed", player_id=conn.claims.player_id,
                           frame_type=type(exc).__name__)
            conn.send(ws.Error(code="internal", message="the gateway failed on this frame",
                               command_id=command_id))
        finally:
            conn.busy = False
        if conn.moving:  # the frame's answer is queued: now the socket may move
            gateway.move(conn)
            return
