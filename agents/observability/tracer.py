"""The tracer seam: what a tracer and its spans offer (`Tracer`, `Span`), the no-op pair that
is the default, and the tracer the environment configures.

With no tracer configured, nothing else is imported; the OpenTelemetry implementation
(`agents.observability.otel`) is loaded only when the standard `OTEL_*` variables ask for traces
(`OTEL_TRACES_EXPORTER=console|otlp`, or an `OTEL_EXPORTER_OTLP_*ENDPOINT`), and records prompts
and outputs only with `SMOLUI_TRACE_CONTENT=1`. `agents.observability.tracing` opens the
agent's spans with it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, Protocol

from agents.errors import AgentConfigError

CONTENT_ENV = "SMOLUI_TRACE_CONTENT"
EXPORTERS = ("console", "otlp")


class Span(Protocol):
    """One timed operation in a trace."""

    def set_attributes(self, attributes: Mapping[str, Any]) -> None:
        """Add attributes (str, bool, int, float, or lists of them)."""

    def record_error(self, error: BaseException) -> None:
        """Mark the span failed with this error."""

    def add_event(self, name: str, attributes: Mapping[str, Any]) -> None:
        """Record something that happened at one moment of the span (an approval answer)."""

    def end(self) -> None:
        """Close the span (it is exported then)."""


class Tracer(Protocol):
    """Starts spans. `enabled` False means the agent skips tracing altogether."""

    enabled: bool
    record_content: bool

    def start_span(
        self,
        name: str,
        parent: Span | None = None,
        attributes: Mapping[str, Any] | None = None,
        client: bool = False,
    ) -> Span:
        """Start a span under `parent` (None: under the caller's current context).

        Args:
            name: The span name.
            parent: The enclosing span from this seam.
            attributes: Attributes known at the start.
            client: The span is a call to a remote service (a model call).
        """


class NoopSpan:
    """A span that records nothing."""

    def set_attributes(self, attributes: Mapping[str, Any]) -> None:
        """Ignore the attributes."""

    def record_error(self, error: BaseException) -> None:
        """Ignore the error."""

    def add_event(self, name: str, attributes: Mapping[str, Any]) -> None:
        """Ignore the event."""

    def end(self) -> None:
        """Nothing to close."""


class NoopTracer:
    """The default tracer: tracing off."""

    enabled = False
    record_content = False

    def start_span(
        self,
        name: str,
        parent: Span | None = None,
        attributes: Mapping[str, Any] | None = None,
        client: bool = False,
    ) -> Span:
        """Return the shared no-op span."""
        return NOOP_SPAN


NOOP_SPAN = NoopSpan()
NOOP_TRACER = NoopTracer()


def configured_exporters(environ: Mapping[str, str]) -> tuple[str, ...]:
    """The trace exporters the `OTEL_*` variables ask for (empty: tracing off).

    Args:
        environ: The environment (usually `os.environ`).

    Raises:
        AgentConfigError: An exporter other than console, otlp or none is named.
    """
    if environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return ()
    names = [n.strip().lower() for n in environ.get("OTEL_TRACES_EXPORTER", "").split(",")]
    names = [n for n in names if n]
    if not names and (
        environ.get("OTEL_EXPORTER_OTLP_ENDPOINT")
        or environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
    ):
        names = ["otlp"]
    unknown = [n for n in names if n not in (*EXPORTERS, "none")]
    if unknown:
        raise AgentConfigError(
            f"OTEL_TRACES_EXPORTER names {', '.join(unknown)}; this app supports "
            "console, otlp (OTLP over HTTP/protobuf) and none."
        )
    return tuple(dict.fromkeys(n for n in names if n != "none"))


def default_tracer() -> Tracer:
    """The tracer the environment configures: OpenTelemetry when `OTEL_*` asks for traces,
    else the no-op tracer (and OpenTelemetry is not imported)."""
    exporters = configured_exporters(os.environ)
    if not exporters:
        return NOOP_TRACER
    from agents.observability.otel import env_tracer

    return env_tracer(exporters, os.environ.get(CONTENT_ENV, "") == "1")
