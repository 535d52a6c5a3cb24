"""Traces across processes: OpenTelemetry, off unless an exporter is asked for.

One trace follows a command from the player's frame at a gateway, through the NATS
request (its W3C ``traceparent`` in the message's headers), the game worker's
decide and commit, the events' JetStream publish (the ``traceparent`` again, in
the stored message's headers), to each gateway's delivery of those events to
the other seats. Every log line written inside a span carries its ``trace_id``
and ``span_id`` (``add_ids``), so a trace found from a player's complaint leads
to each process's lines (docs/operators.md, "Following a slow move").

Work that outlives a message is followed the same way: a ranked match from its
players' joins to their rating notes, a tournament round from its last result to the
next round's games ("Following a slow ranked match", "Following a slow round"). A
``traceparent`` kept in a row is picked up later, on any copy (``of``); a span that
joins several traces is the child of one and links the others (``span(links=)``); a
durable consumer given a span name handles each message in a span of the trace its
header carries (``CONSUMING``, ``consuming``). A task that outlives the span it is
started in (a game's own) starts outside it (``detached``).

Tracing is on when the standard ``OTEL_EXPORTER_OTLP_ENDPOINT`` (or
``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``) is set: spans go to that collector by
OTLP over HTTP, batched (the SDK's own ``OTEL_BSP_*`` settings apply). When it
is off, every function here returns at its first line: the command path pays a
flag's test, not the API's no-op objects. Tests install the SDK's in-memory
exporter with ``configure(..., exporter=)``.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
from collections.abc import Iterator, Mapping, MutableMapping, Sequence
from typing import Any

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.propagate import extract, inject
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor, SpanExporter

Context = otel_context.Context
Span = trace.Span
SpanKind = trace.SpanKind

_ENDPOINTS = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")


# The ``traceparent`` of each stream's append in the group commit being written, read
# by the publisher that runs inside it (``outbox.Publisher``), so each command's events
# go to JetStream under its trace without the event store knowing of traces.
COMMITTING: contextvars.ContextVar[Mapping[str, str] | None] = contextvars.ContextVar(
    "committing", default=None)
# The span of each stream's message a traced consumer is applying (``consumer.Applier``),
# for its handler and its ``after_commit`` to work inside (``within``).
CONSUMING: contextvars.ContextVar[Mapping[str, Context] | None] = contextvars.ContextVar(
    "consuming", default=None)


class _State:
    on = False
    tracer: trace.Tracer = trace.NoOpTracer()
    provider: TracerProvider | None = None


def on() -> bool:
    return _State.on


def asked() -> bool:
    """Whether the environment asks for traces (an OTLP endpoint is set)."""
    return any(os.environ.get(name) for name in _ENDPOINTS)


def configure(service: str, instance: str, version: str,
              exporter: SpanExporter | None = None) -> None:
    """Turn tracing on for this process when asked (``asked``) or given an exporter
    (tests: the SDK's ``InMemorySpanExporter``, its spans handed over at once)."""
    if exporter is None and not asked():
        return
    if exporter is None:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        processor: Any = BatchSpanProcessor(OTLPSpanExporter())
    else:
        processor = SimpleSpanProcessor(exporter)
    provider = TracerProvider(resource=Resource.create({
        "service.name": service, "service.instance.id": instance,
        "service.version": version}))
    provider.add_span_processor(processor)
    _State.provider, _State.tracer, _State.on = provider, provider.get_tracer("spades"), True


def shutdown() -> None:
    """Export what is left and turn tracing off (a service's last step)."""
    provider, _State.provider = _State.provider, None
    _State.on, _State.tracer = False, trace.NoOpTracer()
    if provider is not None:
        provider.shutdown()


def current() -> Context | None:
    """The running context, to carry into another task's work (a game's inbox)."""
    return otel_context.get_current() if _State.on else None


def headers() -> dict[str, str] | None:
    """The running span's ``traceparent`` as message headers, or None when off or
    outside any span."""
    if not _State.on:
        return None
    carrier: dict[str, str] = {}
    inject(carrier)
    return carrier if "traceparent" in carrier else None


def traceparent() -> str | None:
    """The running span's ``traceparent`` alone (a stored message's header)."""
    found = headers()
    return found["traceparent"] if found else None


def from_headers(found: Mapping[str, str] | None) -> Context | None:
    """The context a message's headers carry, or None."""
    if not _State.on or not found or "traceparent" not in found:
        return None
    return extract(found)


def from_raw(raw: bytes) -> Context | None:
    """The context in a message's raw header block (``NATS/1.0\\r\\n...``), read without
    parsing the rest: for messages handed over by the connection's reading."""
    if not _State.on:
        return None
    at = raw.find(b"traceparent:")
    if at < 0:
        return None
    end = raw.find(b"\r\n", at)
    value = raw[at + len(b"traceparent:"):end if end >= 0 else None].strip()
    return extract({"traceparent": value.decode("ascii", "replace")})


@contextlib.contextmanager
def span(name: str, kind: SpanKind = SpanKind.INTERNAL, parent: Context | None = None,
         attrs: Mapping[str, Any] | None = None,
         links: Sequence[Context | None] = ()) -> Iterator[trace.Span | None]:
    """A span, current inside the block (its ``parent`` given, or the running one), linked
    to the spans of ``links`` (other traces this work joins); nothing at all when off."""
    if not _State.on:
        yield None
        return
    with _State.tracer.start_as_current_span(name, context=parent, kind=kind,
                                             attributes=_kept(attrs),
                                             links=_links(links)) as got:
        yield got


def start(name: str, kind: SpanKind = SpanKind.INTERNAL, parent: Context | None = None,
          attrs: Mapping[str, Any] | None = None) -> trace.Span | None:
    """A span ended by the caller (one that outlives the block that started it, such as a
    publish ended by its acknowledgement); None when off."""
    if not _State.on:
        return None
    return _State.tracer.start_span(name, context=parent, kind=kind, attributes=_kept(attrs))


def of(traceparent_: str | None) -> Context | None:
    """The context a stored ``traceparent`` names (a row's), or None."""
    if not _State.on or not traceparent_:
        return None
    return extract({"traceparent": traceparent_})


@contextlib.contextmanager
def within(parent: Context | None) -> Iterator[None]:
    """Run the block in ``parent`` (a span started elsewhere), so what it publishes and
    logs is of that span; as it is when off or without one."""
    if not _State.on or parent is None:
        yield
        return
    token = otel_context.attach(parent)
    try:
        yield
    finally:
        otel_context.detach(token)


def elsewhere(parent: Context | None) -> list[Context]:
    """The running span's context when it is of another trace than ``parent``'s (work
    that continues ``parent`` on this span's behalf: the running span is to be linked)."""
    if not _State.on or parent is None:
        return []
    here = otel_context.get_current()
    mine = trace.get_current_span(here).get_span_context()
    theirs = trace.get_current_span(parent).get_span_context()
    return [here] if mine.is_valid and mine.trace_id != theirs.trace_id else []


def annotate(attrs: Mapping[str, Any]) -> None:
    """Attributes on the running span (what became known inside it)."""
    if _State.on:
        trace.get_current_span().set_attributes(_kept(attrs))


def detached() -> contextvars.Context | None:
    """A copy of the running context outside any span, for a task that outlives the span
    it is started in (a game's own task, started by its creation's request): its work is
    not that request's. None when off (the task takes the usual copy)."""
    if not _State.on:
        return None
    copied = contextvars.copy_context()
    copied.run(otel_context.attach, otel_context.Context())
    return copied


def consuming(stream: str) -> Context | None:
    """The span of ``stream``'s message the running consumer applies (``CONSUMING``)."""
    if not _State.on:
        return None
    return (CONSUMING.get() or {}).get(stream)


def context_of(span_: trace.Span) -> Context:
    return trace.set_span_in_context(span_)


def _links(contexts: Sequence[Context | None]) -> list[trace.Link]:
    found = (trace.get_current_span(c).get_span_context() for c in contexts if c is not None)
    return [trace.Link(s) for s in found if s.is_valid]


def _kept(attrs: Mapping[str, Any] | None) -> dict[str, Any]:
    return {k: v for k, v in (attrs or {}).items() if v is not None}


def traceparent_of(span_: trace.Span) -> str | None:
    """The ``traceparent`` that makes a message a child of ``span_`` (not the running one)."""
    carrier: dict[str, str] = {}
    inject(carrier, context=trace.set_span_in_context(span_))
    return carrier.get("traceparent")


def add_ids(_: Any, __: str, event: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    """structlog: the running span's trace and span ids on every line written inside it."""
    if _State.on:
        got = trace.get_current_span().get_span_context()
        if got.is_valid:
            event["trace_id"] = format(got.trace_id, "032x")
            event["span_id"] = format(got.span_id, "016x")
    return event
