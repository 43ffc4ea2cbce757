"""Per-step cost of tracing: off (no OTEL_* set), console exporter, OTLP/HTTP to loopback.

A zero-latency ScriptedModel makes each step pure loop overhead, so the difference between
modes is what tracing adds. Modes run interleaved (off, console, otlp, off, ...) so a busy
machine slows them alike. Spans go through a `BatchSpanProcessor`, as in production; the
console exporter writes to /dev/null (its formatting is still paid).

    python bench/tracing.py [--steps 10] [--repeats 15] [--agent code|tool]
                            [--executor local|sandbox] [--model-ms 0]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents import ActionStep, CodeAgent, ScriptedModel, ScriptedReply, ToolCallingAgent  # noqa: E402
from agents.observability.tracer import NOOP_TRACER  # noqa: E402
from agents.observability.tracing import AgentTracing  # noqa: E402
from tools import tool  # noqa: E402


@tool
def noop(x: int) -> int:
    """Returns its input.

    Args:
        x: Any number.
    """
    return x


class Sink(BaseHTTPRequestHandler):
    """An OTLP/HTTP endpoint that accepts and counts export requests."""

    requests = 0

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        Sink.requests += 1
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


def script(kind: str, steps: int, model_s: float) -> list[ScriptedReply]:
    """The replies of one run; each takes `model_s` seconds, like a model writing them."""
    if kind == "code":
        texts = [f"Thought: {i}.\n<code>\ny = noop(x={i})\nprint(y)\n</code>" for i in range(steps)]
        texts[-1] = "Thought: done.\n<code>\nfinal_answer('done')\n</code>"
        return [ScriptedReply(text, delay=model_s) for text in texts]
    calls = [("noop", {"x": i}) for i in range(steps - 1)] + [("final_answer", {"answer": "done"})]
    return [ScriptedReply(tool_calls=[call], delay=model_s) for call in calls]


def make_agent(kind: str, executor: str):
    if kind == "code":
        return CodeAgent([noop], ScriptedModel([]), executor_type=executor, verbosity_level=-1)
    return ToolCallingAgent([noop], ScriptedModel([]), verbosity_level=-1)


def tracers(endpoint: str) -> dict:
    """Mode name -> (tracer, provider or None)."""
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter

    from agents.observability.otel import OtelTracer

    console = TracerProvider()
    devnull = open(os.devnull, "w")  # noqa: SIM115 (kept open for the whole run)
    console.add_span_processor(BatchSpanProcessor(ConsoleSpanExporter(out=devnull)))
    otlp = TracerProvider()
    otlp.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(f"{endpoint}/v1/traces")))
    return {
        "off": (NOOP_TRACER, None),
        "console": (OtelTracer(console), console),
        "otlp": (OtelTracer(otlp), otlp),
    }


def run_once(agent, kind: str, steps: int, model_s: float = 0.0) -> list[float]:
    """One run; each step's duration in ms."""
    agent.model = ScriptedModel(script(kind, steps, model_s))
    agent.run("benchmark task")
    return [s.timing.duration * 1000 for s in agent.memory.steps if isinstance(s, ActionStep)]


def noop_seam_us(calls: int = 200_000) -> float:
    """Microseconds that the tracing calls of one step cost when tracing is off."""
    tracing = AgentTracing(NOOP_TRACER)
    step = ActionStep(step_number=1)

    def model_call():
        return (yield from ())

    start = time.perf_counter()
    for _ in range(calls):
        tracing.step_started(1)
        tracing.model_call(model_call(), None, [])
        tracing.code_execution(len, "")
        tracing.step_ended(step)
    return (time.perf_counter() - start) / calls * 1e6


def tool_call_off_us(calls: int = 50_000, rounds: int = 7) -> tuple[float, float]:
    """A tool call made from code, when tracing is off: microseconds per bare call and what
    the tracing hook adds (the host-side path of the sandbox and remote executors); best of
    `rounds` interleaved rounds."""
    from agents.executors.tool_calls import call_tool, traced_call

    def per_call(function, *args) -> float:
        start = time.perf_counter()
        for _ in range(calls):
            function(*args)
        return (time.perf_counter() - start) / calls * 1e6

    bare, hooked = [], []
    for _ in range(rounds):
        bare.append(per_call(call_tool, noop, [1], {}))
        hooked.append(per_call(traced_call, None, "noop", noop, [1], {}))
    return min(bare), min(hooked) - min(bare)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--agent", choices=["code", "tool"], default="code")
    parser.add_argument("--executor", choices=["local", "sandbox"], default="local")
    parser.add_argument("--model-ms", type=float, default=0.0, help="simulated model latency")
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Sink)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    modes = tracers(f"http://127.0.0.1:{server.server_address[1]}")
    agent = make_agent(args.agent, args.executor)
    samples: dict[str, list[float]] = {name: [] for name in modes}
    for tracer, _ in modes.values():  # warm-up
        agent.tracing.tracer = tracer
        run_once(agent, args.agent, args.steps)
    for _ in range(args.repeats):
        for name, (tracer, _) in modes.items():
            agent.tracing.tracer = tracer
            samples[name] += run_once(agent, args.agent, args.steps, args.model_ms / 1000)
    for _, provider in modes.values():
        if provider is not None:
            provider.force_flush()
            provider.shutdown()
    server.shutdown()
    off = statistics.median(samples["off"])
    where = f" ({args.executor} executor)" if args.agent == "code" else ""
    print(f"{args.agent} agent{where}, {args.steps} steps x {args.repeats} runs per mode")
    print(f"(median ms per step; the scripted model takes {args.model_ms:g} ms per call)")
    print(f"  tracing off (no-op seam):      {off:7.3f} ms/step")
    for name in ("console", "otlp"):
        value = statistics.median(samples[name])
        print(
            f"  tracing on, {name:8s} exporter: {value:7.3f} ms/step  ({(value / off - 1) * 100:+.1f}%)"
        )
    print(f"  OTLP export requests received: {Sink.requests}")
    print(f"  no-op seam calls per step when off: {noop_seam_us():.2f} us")
    bare, added = tool_call_off_us()
    print(f"  tool call from code when off: {bare:.2f} us/call, tracing hook {added:+.3f} us")


if __name__ == "__main__":
    main()
