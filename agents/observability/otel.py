"""OpenTelemetry behind the tracer seam (`agents.observability.tracer`): imported only when used.

`env_tracer` builds the tracer that the standard `OTEL_*` variables describe, once per
process: the service name and resource from `OTEL_SERVICE_NAME`/`OTEL_RESOURCE_ATTRIBUTES`,
the OTLP endpoint and headers from `OTEL_EXPORTER_OTLP_*`, batching from `OTEL_BSP_*`. When
the process already has an SDK tracer provider (e.g. set up by `opentelemetry-instrument`),
spans go there instead.
"""

from __future__ import annotations

import functools
import logging
import os
from collections.abc import Mapping
from typing import Any

from agents.errors import AgentConfigError

logger = logging.getLogger(__name__)

SCOPE = "smolui.agents"
DEFAULT_SERVICE_NAME = "smolui"
MAX_STATUS_CHARS = 500

try:
    from opentelemetry import trace
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter
    from opentelemetry.trace import SpanKind, Status, StatusCode
except ImportError as error:  # pragma: no cover - depends on the installation
    raise AgentConfigError(
        "Traces are configured (OTEL_* variables) but OpenTelemetry is not installed: "
        "pip install opentelemetry-sdk opentelemetry-exporter-otlp-proto-http"
    ) from error


class OtelSpan:
    """An OpenTelemetry span seen through the seam's `Span` interface.

    Args:
        span: The OpenTelemetry span.
    """

    __slots__ = ("span",)

    def __init__(self, span: trace.Span):
        self.span = span

    def set_attributes(self, attributes: Mapping[str, Any]) -> None:
        """Add attributes to the span."""
        self.span.set_attributes(attributes)

    def record_error(self, error: BaseException) -> None:
        """Record the exception as an event, set `error.type` and the error status."""
        self.span.record_exception(error)
        self.span.set_attribute("error.type", type(error).__name__)
        detail = f"{type(error).__name__}: {error}"[:MAX_STATUS_CHARS]
        self.span.set_status(Status(StatusCode.ERROR, detail))

    def add_event(self, name: str, attributes: Mapping[str, Any]) -> None:
        """Add an event, stamped now, to the span."""
        self.span.add_event(name, attributes=dict(attributes))

    def end(self) -> None:
        """End the span."""
        self.span.end()


class OtelTracer:
    """Starts OpenTelemetry spans for the agent loop.

    Args:
        tracer_provider: Where spans go (default: the global provider).
        record_content: Record prompts, outputs, code and tool arguments on the spans.
    """

    enabled = True

    def __init__(self, tracer_provider: Any = None, record_content: bool = False):
        provider = tracer_provider or trace.get_tracer_provider()
        self._tracer = provider.get_tracer(SCOPE)
        self.record_content = record_content

    def start_span(
        self,
        name: str,
        parent: Any = None,
        attributes: Mapping[str, Any] | None = None,
        client: bool = False,
    ) -> OtelSpan:
        """Start a span under `parent` (an `OtelSpan`), or under the current context.

        Args:
            name: The span name.
            parent: The enclosing span.
            attributes: Attributes known at the start.
            client: A call to a remote service (span kind CLIENT).
        """
        context = trace.set_span_in_context(parent.span) if isinstance(parent, OtelSpan) else None
        kind = SpanKind.CLIENT if client else SpanKind.INTERNAL
        span = self._tracer.start_span(name, context=context, kind=kind, attributes=attributes)
        return OtelSpan(span)


def build_provider(exporters: tuple[str, ...], environ: Mapping[str, str]) -> TracerProvider:
    """A tracer provider exporting to `exporters` ("console", "otlp"), batched.

    Args:
        exporters: Exporter names, from `agents.observability.tracer.configured_exporters`.
        environ: The environment (for the service name).
    """
    attributes = {} if environ.get("OTEL_SERVICE_NAME") else {"service.name": DEFAULT_SERVICE_NAME}
    provider = TracerProvider(resource=Resource.create(attributes))
    for name in exporters:
        provider.add_span_processor(BatchSpanProcessor(_exporter(name, environ)))
    return provider


def _exporter(name: str, environ: Mapping[str, str]) -> Any:
    if name == "console":
        return ConsoleSpanExporter()
    protocol = environ.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") or environ.get(
        "OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf"
    )
    if protocol != "http/protobuf":
        raise AgentConfigError(
            f"OTEL_EXPORTER_OTLP_PROTOCOL={protocol} is not supported here; use http/protobuf "
            "(the OTLP/HTTP port of a collector is usually 4318)."
        )
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    return OTLPSpanExporter()


@functools.cache
def env_tracer(exporters: tuple[str, ...], record_content: bool) -> OtelTracer:
    """The process's tracer for these exporters (built once; later calls share it).

    Args:
        exporters: Exporter names from the `OTEL_*` variables.
        record_content: Record prompts and outputs (`SMOLUI_TRACE_CONTENT=1`).
    """
    from opentelemetry.sdk.trace import TracerProvider as SdkProvider

    current = trace.get_tracer_provider()
    if isinstance(current, SdkProvider):
        logger.info("tracing into the process's existing OpenTelemetry provider")
        return OtelTracer(current, record_content)
    provider = build_provider(exporters, os.environ)
    trace.set_tracer_provider(provider)
    logger.info("tracing on: exporting spans to %s", ", ".join(exporters))
    return OtelTracer(provider, record_content)
