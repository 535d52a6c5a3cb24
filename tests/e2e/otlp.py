"""A collector of the test's own: spans the services export by OTLP over HTTP (the
standard ``OTEL_EXPORTER_OTLP_ENDPOINT`` pointed at it), decoded with the protocol's
own messages, with their parents and links."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue

from services.platform import servers


@dataclass(frozen=True)
class Got:
    service: str
    instance: str
    name: str
    trace_id: str
    span_id: str
    parent_id: str
    attributes: dict[str, str]
    links: tuple[tuple[str, str], ...] = ()  # (trace id, span id) of each span linked to

    @property
    def ref(self) -> tuple[str, str]:
        """What a link to this span names."""
        return self.trace_id, self.span_id


class Collector(ThreadingHTTPServer):
    """An OTLP/HTTP trace receiver: every span posted to ``/v1/traces``, kept."""

    def __init__(self) -> None:
        self.spans: list[Got] = []
        self.lock = threading.Lock()
        super().__init__(("127.0.0.1", servers.free_port()), _Receive)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def take(self, body: bytes) -> None:
        request = ExportTraceServiceRequest()
        request.ParseFromString(body)
        got = []
        for rs in request.resource_spans:
            res = {a.key: a.value.string_value for a in rs.resource.attributes}
            for scope in rs.scope_spans:
                for s in scope.spans:
                    got.append(Got(res["service.name"], res["service.instance.id"], s.name,
                                   s.trace_id.hex(), s.span_id.hex(), s.parent_span_id.hex(),
                                   {a.key: _text(a.value) for a in s.attributes},
                                   tuple((k.trace_id.hex(), k.span_id.hex()) for k in s.links)))
        with self.lock:
            self.spans.extend(got)

    def of_trace(self, trace_id: str) -> list[Got]:
        with self.lock:
            return [s for s in self.spans if s.trace_id == trace_id]

    def named(self, name: str, **attrs: str) -> list[Got]:
        """The spans called ``name`` whose attributes include ``attrs``."""
        with self.lock:
            return [s for s in self.spans if s.name == name
                    and all(s.attributes.get(k) == v for k, v in attrs.items())]

    def by_id(self, span_id: str) -> Got | None:
        with self.lock:
            return next((s for s in self.spans if s.span_id == span_id), None)


def _text(value: AnyValue) -> str:
    """An attribute's value as text (a number's digits; a list's items, comma-separated)."""
    kind = value.WhichOneof("value")
    if kind is None:
        return ""
    if kind == "array_value":
        return ",".join(_text(v) for v in value.array_value.values)
    got = getattr(value, kind)
    return got if isinstance(got, str) else str(got).lower() if isinstance(got, bool) \
        else str(got)


class _Receive(BaseHTTPRequestHandler):
    server: Collector

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        if self.path == "/v1/traces":
            self.server.take(body)
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.end_headers()

    def log_message(self, *_: object) -> None:
        pass


@contextlib.contextmanager
def collecting() -> Iterator[Collector]:
    server = Collector()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
