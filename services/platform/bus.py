"""JetStream's streams and consumers declared and checked, and request/reply on the
NATS services API.

JetStream is transport, not truth: consumers record what they applied in Postgres
(``consumer``), and the broker's settings that this relies on (file storage,
explicit acks, bounded redelivery, a duplicate window) are checked at start-up
rather than assumed. Connecting is ``connection``'s.
"""

from __future__ import annotations

import asyncio
import time
import zlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import msgspec
import nats.js.errors
import structlog
from nats.aio.client import Client
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy, StorageType, StreamConfig
from nats.micro import add_service
from nats.micro.request import Request, ServiceError
from prometheus_client import Histogram
from tenacity import AsyncRetrying, retry_if_exception_type, stop_after_attempt, wait_exponential

from schemas import versions
from services.platform import db, logs, tracing

if TYPE_CHECKING:
    from services.platform.busclient import BusClient

T = TypeVar("T", bound=msgspec.Struct)
_T = TypeVar("_T")

HANDLED = Histogram("spades_request_seconds", "Request handling time", ["endpoint"])

_encoder = msgspec.msgpack.Encoder()
_log = logs.get("bus")


class StreamMissing(LookupError):
    """A consumer's stream does not exist (yet): another service makes it."""


class BusConfigError(RuntimeError):
    """The broker's configuration differs from what the platform relies on."""


class RemoteError(Exception):
    """An error reply from a service: a stable code and a plain description."""

    def __init__(self, code: str, description: str) -> None:
        super().__init__(f"{code}: {description}")
        self.code, self.description = code, description


# --- JetStream streams and consumers, declared and checked --------------------------------


@dataclass(frozen=True)
class StreamSpec:
    name: str
    subjects: tuple[str, ...]
    duplicate_window: float
    replicas: int = 1
    max_age: float = 7 * 24 * 3600.0


async def _settled(read: Callable[[], Awaitable[_T]]) -> _T:
    """A read just after a write in a cluster: the node that answers may not have applied
    the meta leader's assignment yet and says 404 for a moment. Tried for about 3 s."""
    retrying = AsyncRetrying(retry=retry_if_exception_type(nats.js.errors.NotFoundError),
                             wait=wait_exponential(multiplier=0.05, max=1.6),
                             stop=stop_after_attempt(7), reraise=True)

    async def once() -> _T:  # ``read`` may be a lambda: tenacity awaits coroutine functions
        return await read()

    return await retrying(once)


async def ensure_stream(client: BusClient, spec: StreamSpec) -> None:
    js = client.js
    config = StreamConfig(name=spec.name, subjects=list(spec.subjects), storage=StorageType.FILE,
                          duplicate_window=spec.duplicate_window, num_replicas=spec.replicas,
                          max_age=spec.max_age)
    # A cluster's meta leader may take longer than the API's timeout to place a new
    # stream on a busy machine: asked again, an identical stream is no change.
    creating = AsyncRetrying(retry=retry_if_exception_type(nats.errors.TimeoutError),
                             stop=stop_after_attempt(4), reraise=True)
    try:
        await creating(js.add_stream, config)
    except nats.js.errors.BadRequestError:
        try:
            await js.update_stream(config)
        except nats.js.errors.APIError as exc:
            raise BusConfigError(f"JetStream stream {spec.name} exists with another "
                                 f"configuration that cannot be changed: {exc.description}"
                                 ) from None
    info = await _settled(lambda: js.stream_info(spec.name))
    got = info.config
    problems = []
    if got.storage != StorageType.FILE:
        problems.append(f"storage is {got.storage}, not file")
    if (got.duplicate_window or 0) < spec.duplicate_window:
        problems.append(f"duplicate window {got.duplicate_window}s < {spec.duplicate_window}s")
    if (got.num_replicas or 1) < spec.replicas:
        problems.append(f"{got.num_replicas} replica(s) < {spec.replicas}")
    if set(got.subjects or ()) != set(spec.subjects):
        problems.append(f"subjects {got.subjects} != {list(spec.subjects)}")
    if problems:
        raise BusConfigError(f"JetStream stream {spec.name}: " + "; ".join(problems))


@dataclass(frozen=True)
class ConsumerSpec:
    stream: str
    durable: str
    filter_subject: str
    ack_wait: float
    max_deliver: int
    max_ack_pending: int = 1000


async def ensure_consumer(client: BusClient, spec: ConsumerSpec) -> None:
    js = client.js
    config = ConsumerConfig(durable_name=spec.durable, ack_policy=AckPolicy.EXPLICIT,
                            deliver_policy=DeliverPolicy.ALL, filter_subject=spec.filter_subject,
                            ack_wait=spec.ack_wait, max_deliver=spec.max_deliver,
                            max_ack_pending=spec.max_ack_pending)
    await js.add_consumer(spec.stream, config)
    got = (await _settled(lambda: js.consumer_info(spec.stream, spec.durable))).config
    problems = []
    if got.ack_policy != AckPolicy.EXPLICIT:
        problems.append(f"ack policy is {got.ack_policy}, not explicit")
    if got.max_deliver != spec.max_deliver:
        problems.append(f"max deliver is {got.max_deliver}, not {spec.max_deliver}")
    if abs((got.ack_wait or 0) - spec.ack_wait) > 0.001:
        problems.append(f"ack wait is {got.ack_wait}s, not {spec.ack_wait}s")
    if got.filter_subject != spec.filter_subject:
        problems.append(f"filter is {got.filter_subject}, not {spec.filter_subject}")
    if problems:
        raise BusConfigError(f"JetStream consumer {spec.durable}: " + "; ".join(problems))


# --- Request/reply on the NATS services API ----------------------------------------------


@dataclass(frozen=True)
class Endpoint:
    """A request type and its handler. With ``tasks``, each request is answered in a
    task of its own (kept in that set until answered), so a slow request never holds
    up the next one on the same subscription; without it, one at a time."""

    name: str
    request_type: type[msgspec.Struct]
    handler: Callable[[Any], Awaitable[msgspec.Struct]]
    tasks: set[asyncio.Task[None]] | None = None


# A reply past the bus's payload limit (the server's ``max_payload``, 1 MB unless set: a
# finished 1,024-team tournament's view is 1.4 MB) goes deflated, which this header says;
# the requester inflates it. A reply that fits goes as it is, so a requester of an
# earlier version reads every reply it could read before.
ENCODING = "Spades-Encoding"
DEFLATE = "deflate"
_HEADROOM = 4_096  # bytes of the limit left for the headers


async def serve(nc: Client, *, service: str, version: str, group: str,
                endpoints: list[Endpoint], instance: str = "") -> Any:
    """Start a NATS micro service whose endpoints take and return msgspec Structs,
    each at ``<group>.<name>`` in the queue group ``<group>.q``."""
    svc = await add_service(nc, name=service, version=version,
                            metadata={"group": group, "instance": instance})
    grp = svc.add_group(name=group, queue_group=f"{group}.q")
    for ep in endpoints:
        await grp.add_endpoint(name=ep.name, handler=responder(ep, nc.max_payload))
    return svc


def packed(reply: msgspec.Struct, max_payload: int) -> tuple[bytes, dict[str, str]]:
    """A reply's body and headers: deflated when it would not fit in ``max_payload``."""
    data, headers = _encoder.encode(reply), versions.headers(reply)
    if len(data) > max_payload - _HEADROOM:
        data, headers[ENCODING] = zlib.compress(data, 1), DEFLATE
    return data, headers


def responder(ep: Endpoint, max_payload: int = 1 << 20) -> Callable[[Request], Awaitable[None]]:
    """Decoding and error mapping, once for every request/reply handler.

    A handler receives a decoded request and returns a reply Struct; a request
    that does not decode gets error code 400, a ``ServiceError`` the handler
    raises becomes an error reply with its code and description, anything else
    code 500 (and a log line). Also for plain subscriptions: wrap the message in
    ``nats.micro.request.Request``.
    """
    decoder = msgspec.msgpack.Decoder(ep.request_type)
    handled = HANDLED.labels(ep.name)

    async def handle(req: Request) -> None:
        started = time.perf_counter()
        # Bound for the request and the task it starts (a task copies the context). Reset
        # by tokens: ``bound_contextvars`` reads every bound variable first, per request.
        tokens = structlog.contextvars.bind_contextvars(
            endpoint=ep.name, correlation_id=(req.headers or {}).get("Correlation-Id"))
        try:
            try:
                body = decoder.decode(req.data)
            except (msgspec.DecodeError, msgspec.ValidationError) as exc:
                await _refuse_undecoded(ep.name, req, exc)
                return
            work = _answer(ep, req, body, started, handled, max_payload)
            if tracing.on():
                work = _in_span(ep.name, req, work)
            if ep.tasks is None:
                await work
                return
            task = asyncio.create_task(work)
            ep.tasks.add(task)
            task.add_done_callback(ep.tasks.discard)
        finally:
            structlog.contextvars.reset_contextvars(**tokens)

    return handle


async def _refuse_undecoded(name: str, req: Request, exc: Exception) -> None:
    """A request that did not decode: ``unsupported_version`` when a newer writer sent
    it (its ``Spades-Schema`` header says so), else 400."""
    why = versions.decode_failed(name, (req.headers or {}).get(versions.HEADER), exc)
    if isinstance(why, versions.UnreadableVersion):
        _log.warning("unreadable_version", endpoint=name, error=str(why))
        await req.respond_error(versions.CODE, str(why))
        return
    _log.warning("bad_request", endpoint=name, error=str(exc))
    await req.respond_error("400", f"bad request: {exc}")


async def _answer(ep: Endpoint, req: Request, body: msgspec.Struct, started: float,
                  handled: Any, max_payload: int) -> None:
    """The handler's reply, or its refusal as an error reply (anything else: 500, logged);
    a reply too large for the bus even deflated is a 500 too, at once, rather than
    nothing and the requester's timeout."""
    try:
        try:
            reply = await ep.handler(body)
        except ServiceError as exc:
            await req.respond_error(exc.code, exc.description)
            return
        except db.AWAY as exc:  # "not now": the requester may try again
            _log.warning("handler_database_away", endpoint=ep.name, error=repr(exc))
            await req.respond_error("unavailable", "the store is not answering now")
            return
        except Exception:
            # The log has the exception; the requester (and maybe a client) gets none
            # of its names.
            _log.exception("handler_failed", endpoint=ep.name)
            await req.respond_error("500", "internal error (logged)")
            return
        data, headers = packed(reply, max_payload)
        try:
            if len(data) > max_payload - _HEADROOM:
                _log.error("reply_too_large", endpoint=ep.name, size=len(data))
                await req.respond_error("500", "the reply is too large for the bus (logged)")
                return
            await req.respond(data, headers=headers)
        except Exception as exc:  # the connection is going away; the requester retries
            _log.warning("reply_failed", endpoint=ep.name, error=repr(exc))
    finally:
        handled.observe(time.perf_counter() - started)


async def _in_span(name: str, req: Request, work: Awaitable[None]) -> None:
    """A request answered inside a span of the trace its headers carry (a new one if none)."""
    with tracing.span(name, tracing.SpanKind.SERVER, tracing.from_headers(req.headers),
                      attrs={"messaging.destination.name": req.subject}):
        await work


async def request(nc: Client, subject: str, body: msgspec.Struct, reply_type: type[T],
                  timeout: float = 5.0) -> T:
    """Ask and wait. An error reply is ``RemoteError``; so is a reply a newer version of
    the replier wrote that this code cannot read (code ``unsupported_version``)."""
    if tracing.on():  # the request's own span, its context in the message's headers
        with tracing.span("request", tracing.SpanKind.CLIENT,
                          attrs={"messaging.destination.name": subject}):
            msg = await nc.request(subject, _encoder.encode(body), timeout=timeout,
                                   headers=versions.headers(body, tracing.headers()))
    else:
        msg = await nc.request(subject, _encoder.encode(body), timeout=timeout,
                               headers=versions.headers(body))
    headers = msg.headers or {}
    if "Nats-Service-Error-Code" in headers:
        raise RemoteError(headers["Nats-Service-Error-Code"], headers.get("Nats-Service-Error", ""))
    data = zlib.decompress(msg.data) if headers.get(ENCODING) == DEFLATE else msg.data
    try:
        return msgspec.msgpack.decode(data, type=reply_type)
    except msgspec.DecodeError as exc:
        why = versions.decode_failed(subject, headers.get(versions.HEADER), exc)
        if isinstance(why, versions.UnreadableVersion):
            raise RemoteError(versions.CODE, str(why)) from None
        raise
