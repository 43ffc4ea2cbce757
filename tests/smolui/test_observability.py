"""Health routes and Prometheus metrics, served by the running app next to the gradio page."""

from __future__ import annotations

import socket

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from agents import ActionStep, CodeAgent, PlanningStep, ScriptedModel
from agents.errors import AgentExecutionError
from agents.models.messages import TokenUsage
from smolui.app.model_loader import ModelLoader
from smolui.observability.health import model_check, readiness, store_check
from smolui.observability.metrics import AppMetrics
from smolui.store import StoreUnavailableError
from tests.otlp_receiver import OtlpReceiver
from tests.waiting import wait_for

ANSWER = "Thought: compute it.\n<code>\nfinal_answer(6 * 7)\n</code>"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def receiver():
    with OtlpReceiver() as running:
        yield running


@pytest.fixture(scope="module")
def app(tmp_path_factory, receiver):
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor

    from agents.observability.otel import OtelTracer
    from smolui.app.gradio_ui import GradioUI
    from smolui.app.settings import Settings

    provider = TracerProvider()
    exporter = OTLPSpanExporter(f"{receiver.endpoint}/v1/traces")
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = OtelTracer(provider)

    folder = tmp_path_factory.mktemp("observability")
    settings = Settings(model="scripted", executor="local", host="127.0.0.1", port=_free_port(),
                        upload_folder=str(folder / "uploads"), data_dir=str(folder))  # fmt: skip

    def make_agent() -> CodeAgent:
        model = ScriptedModel([ANSWER], loop=True)
        agent = CodeAgent([], model, executor_type="local", verbosity_level=-1)
        agent.tracing.tracer = tracer
        return agent

    ui = GradioUI(make_agent, settings=settings, model_label=lambda: "scripted")
    ui.launch(prevent_thread_lock=True, quiet=True)
    yield ui, f"http://127.0.0.1:{settings.port}/"
    ui.close()
    provider.shutdown()


def scrape(base: str) -> dict[tuple[str, tuple], float]:
    """The app's metrics over HTTP: (sample name, sorted labels) -> value."""
    response = httpx.get(base + "metrics", timeout=10)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    samples = {}
    for family in text_string_to_metric_families(response.text):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def test_health_and_readiness_answer_next_to_the_page(app):
    _, base = app
    health = httpx.get(base + "healthz", timeout=10)
    assert health.status_code == 200 and health.json() == {"status": "ok"}
    ready = httpx.get(base + "readyz", timeout=10)
    assert ready.status_code == 200
    assert ready.json() == {"status": "ready", "checks": {"store": "ok"}}
    page = httpx.get(base, timeout=10)
    assert page.status_code == 200 and "<html" in page.text.lower()


def test_the_page_describes_only_the_events_a_script_calls(app):
    """Gradio writes the description of every public event into each page it serves: the
    page's ~70 internal events made ~340 KB of it (`smolui.ui.endpoints`)."""
    import json
    import re

    _, base = app
    page = httpx.get(base, timeout=10).text
    described = re.search(r"window\.gradio_api_info = (\{.*?\});</script>", page, re.S)
    assert described, "gradio no longer writes its API description into the page"
    named = set(json.loads(described.group(1))["named_endpoints"])
    assert named == {"/echo", "/run", "/usage"}, "a typed message's two, the admins' report"


def test_a_turn_moves_the_counts_and_is_traced_with_its_conversation(app, receiver):
    from gradio_client import Client

    ui, base = app
    before = scrape(base)
    client = Client(base, verbose=False)
    echoed = client.predict(
        message={"text": "What is 6 times 7?", "files": []}, history=[], api_name="/echo"
    )
    assert "What is 6 times 7?" in str(echoed[0])  # the chat; the other outputs are controls
    chat = client.predict(api_name="/run")  # the turn starts from the chat the echo showed
    assert any("42" in str(message["content"]) for message in chat)
    after = scrape(base)

    def moved(name: str, **labels: str) -> float:
        key = (name, tuple(sorted(labels.items())))
        return after.get(key, 0.0) - before.get(key, 0.0)

    assert moved("smolui_turns_total", outcome="done") == 1
    assert moved("smolui_steps_total", kind="action") == 1
    assert moved("smolui_turn_duration_seconds_count") == 1
    assert moved("smolui_model_tokens_total", direction="input") > 0
    assert moved("smolui_model_tokens_total", direction="output") > 0
    assert after[("smolui_live_conversations", ())] >= 1
    # The turn's lock is released just after its last update.
    wait_for(lambda: scrape(base)[("smolui_running_turns", ())] == 0, "no turn counted as running")
    assert after[("smolui_sandbox_workers", ())] == 0  # this app runs code in-process
    spans = receiver.wait_for("invoke_agent CodeAgent")
    conversations = {session.id for session in ui.registry.sessions()}
    runs = [span for span in spans if span["name"] == "invoke_agent CodeAgent"]
    assert runs[-1]["attributes"]["gen_ai.conversation.id"] in conversations


def test_readyz_answers_503_and_says_which_part_is_not_ready(app):
    ui, base = app

    def broken(spec):
        raise OSError("no such model file: missing.gguf")

    loader = ModelLoader("missing.gguf", build=broken)
    loader.start()
    wait_for(lambda: not loader.label.endswith("(loading…)"), "the broken model failed to load")
    ui.ready_checks["model"] = model_check(loader)
    try:
        ready = httpx.get(base + "readyz", timeout=10)
    finally:
        del ui.ready_checks["model"]
    assert ready.status_code == 503
    body = ready.json()
    assert body["status"] == "not ready" and body["checks"]["store"] == "ok"
    assert "missing.gguf (failed to load)" in body["checks"]["model"]


def test_an_unreachable_database_makes_the_store_check_fail(tmp_path):
    from sqlalchemy import create_engine

    class Unreachable:
        engine = create_engine(f"sqlite:///{tmp_path}/no/such/folder/db.sqlite")

    with pytest.raises(StoreUnavailableError, match="cannot reach"):
        store_check(Unreachable())()
    status, body = readiness({"store": store_check(Unreachable())})
    assert status == 503 and body["checks"]["store"].startswith("StoreUnavailableError")


def test_each_app_counts_on_its_own_registry():
    first, second = AppMetrics(), AppMetrics()
    failed = ActionStep(step_number=1, token_usage=TokenUsage(100, 20))
    failed.error = AgentExecutionError("ZeroDivisionError")
    first.event(failed)
    first.event(PlanningStep(model_input_messages=[], model_output_message=None, plan="p",
                             token_usage=TokenUsage(10, 5)))  # fmt: skip
    first.event("a token delta, not a step")
    first.turn_finished("failed", 2.0, RuntimeError("boom"))
    text = first.render()[0].decode()
    assert 'smolui_steps_total{kind="action"} 1.0' in text
    assert 'smolui_steps_total{kind="planning"} 1.0' in text
    assert 'smolui_model_tokens_total{direction="input"} 110.0' in text
    assert 'smolui_errors_total{kind="AgentExecutionError"} 1.0' in text
    assert 'smolui_errors_total{kind="RuntimeError"} 1.0' in text
    assert 'smolui_turns_total{outcome="failed"} 1.0' in text
    assert "smolui_steps_total{" not in second.render()[0].decode()


def test_a_taken_port_is_a_clear_error():
    from fastapi import FastAPI

    from smolui.observability.server import AppServer

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(OSError, match=f"127.0.0.1:{port}.*in use"):
            AppServer(FastAPI(), "127.0.0.1", port).start()
