"""Model servers found on loopback: a real llama.cpp server (`python -m llama_cpp.server`)
as the OpenAI-compatible one, a small stand-in for Ollama's model list, the model strings
that run what was found, and the app looking only when no model was given."""

from __future__ import annotations

import json
import select
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from model_servers import free_port

from agents.errors import AgentConfigError
from agents.models.local_servers import (
    USUAL_PORTS,
    LocalModelSearch,
    find_local_models,
    models_on,
    parse_ports,
)
from agents.models.spec import model_from_spec
from smolui.app.factory import AgentFactory
from smolui.app.settings import Settings, settings_from_args
from tests.waiting import wait_for


class _Answers(ThreadingHTTPServer):
    """A loopback HTTP server answering GETs from a {path: JSON} map (404 elsewhere)."""

    def __init__(self, answers: dict[str, object]):
        self.answers = answers

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output clean
                pass

            def do_GET(self):
                found = self.path in answers
                body = json.dumps(answers[self.path] if found else {"error": "no"}).encode()
                self.send_response(200 if found else 404)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        super().__init__(("127.0.0.1", 0), Handler)
        self.port = self.server_address[1]
        threading.Thread(target=self.serve_forever, daemon=True).start()


@pytest.fixture
def ollama() -> Iterator[_Answers]:
    """Ollama's model list (`/api/tags`), as Ollama answers it."""
    tags = {"models": [{"name": "qwen2.5-coder:7b", "size": 1}, {"name": "llama3.2:latest"}]}
    server = _Answers({"/api/tags": tags})
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    """A listening loopback socket that nothing answers on: it tells whether it was asked."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(8)
        yield sock


def _asked(sock: socket.socket) -> bool:
    return bool(select.select([sock], [], [], 0)[0])


def test_ports_default_to_the_usual_ones_and_reject_what_is_not_a_port():
    assert parse_ports("") == USUAL_PORTS == (11434, 8080, 1234, 8000)
    assert parse_ports(" 9000, 11434 ,9000") == (9000, 11434)
    with pytest.raises(ValueError, match="'http' is not a port"):
        parse_ports("http")
    with pytest.raises(ValueError, match="'70000'"):
        parse_ports("70000")


def test_ollama_models_are_found_and_named_with_their_server(ollama):
    found = models_on(ollama.port)
    assert [model.label for model in found] == [
        "qwen2.5-coder:7b (Ollama)",
        "llama3.2:latest (Ollama)",
    ]
    url = f"http://127.0.0.1:{ollama.port}"
    assert found[0].spec == f"ollama:qwen2.5-coder:7b@{url}"
    model = model_from_spec(found[0].spec)  # built, not called: no real Ollama here
    assert (model.model_id, model.api_base) == ("ollama_chat/qwen2.5-coder:7b", url)


def test_a_closed_port_or_a_server_that_is_no_model_server_offers_nothing():
    other = _Answers({"/": {"hello": "world"}, "/v1/models": {"object": "not a list"}})
    try:
        assert models_on(other.port) == []
    finally:
        other.shutdown()
        other.server_close()
    assert models_on(free_port()) == []


@pytest.mark.slow
def test_a_llama_cpp_server_is_found_and_its_model_runs(llama_server, monkeypatch):
    found = find_local_models((free_port(), llama_server.port))
    assert len(found) == 1
    model = found[0]
    assert (
        model.label
        == f"{Path(model.name).name} (OpenAI-compatible server, port {llama_server.port})"
    )
    assert model.spec == f"openai-local:{model.name}@{llama_server.base_url}"
    # By its name alone, on the ports this machine's settings name.
    monkeypatch.setenv("SMOLUI_LOCAL_SERVER_PORTS", str(llama_server.port))
    by_name = model_from_spec(f"openai-local:{model.name}")
    assert by_name.api_base == llama_server.base_url
    reply = by_name.generate([{"role": "user", "content": "Say hi."}], max_tokens=4)
    assert reply.content


@pytest.mark.slow
def test_an_unknown_local_model_names_the_ports_asked(llama_server, monkeypatch):
    monkeypatch.setenv("SMOLUI_LOCAL_SERVER_PORTS", str(llama_server.port))
    with pytest.raises(AgentConfigError, match=rf"ports {llama_server.port}\).*'no-such-model'"):
        model_from_spec("openai-local:no-such-model")


def test_the_search_runs_in_the_background_and_finds_the_models(ollama):
    search = LocalModelSearch((ollama.port, free_port()))
    assert search.found == ()  # nothing before it runs
    search.start()
    assert search.wait(timeout=60)
    assert [model.name for model in search.found] == ["qwen2.5-coder:7b", "llama3.2:latest"]


def _factory(tmp_path: Path, argv: list[str], environ: dict[str, str]) -> AgentFactory:
    environ = {"SMOLUI_DATA_DIR": str(tmp_path / "data"), **environ}
    return AgentFactory(settings_from_args(argv, environ), loader=None)


def test_without_a_model_the_app_offers_the_models_found(tmp_path, ollama):
    factory = _factory(tmp_path, [], {"SMOLUI_LOCAL_SERVER_PORTS": str(ollama.port)})
    assert factory.settings.find_local_servers is None  # looks: the default model
    wait_for(lambda: len(factory.model_choices()) == 3, "the found models in the choices")
    labels = [label for label, _ in factory.model_choices()]
    assert labels == ["local (default)", "qwen2.5-coder:7b (Ollama)", "llama3.2:latest (Ollama)"]
    spec = factory.model_choices()[1][1]
    assert factory.offers(spec) and not factory.offers("ollama:other@http://127.0.0.1:1")
    assert factory._picked(spec) == spec
    with pytest.raises(AgentConfigError, match="not one of .*nor found on a local server"):
        factory._picked("openai-local:x@http://10.0.0.1/v1")


@pytest.mark.parametrize(
    "argv, environ",
    [
        (["--model", "scripted:demo"], {}),
        ([], {"SMOLUI_MODEL": "openai:gpt-4o-mini"}),
        (["--model", "local"], {}),
        (["--no-find-local-servers"], {}),
    ],
)
def test_nothing_is_probed_when_a_model_is_given(tmp_path, listener, argv, environ):
    port = str(listener.getsockname()[1])
    factory = _factory(tmp_path, argv, {"SMOLUI_LOCAL_SERVER_PORTS": port, **environ})
    assert factory.settings.find_local_servers is False
    assert factory.local_models is None
    assert factory.model_choices() == [(f"{factory.settings.model} (default)", "")]
    assert not _asked(listener)


def test_settings_built_in_code_with_a_model_look_for_nothing(tmp_path, listener):
    port = str(listener.getsockname()[1])
    settings = Settings(model="scripted:demo", local_server_ports=port, data_dir=str(tmp_path))
    assert AgentFactory(settings, loader=None).local_models is None
    assert not _asked(listener)


def test_the_same_listener_is_asked_when_no_model_is_given(tmp_path, listener):
    """The check above can fail: with no model given, the listener is asked."""
    port = str(listener.getsockname()[1])
    factory = _factory(tmp_path, [], {"SMOLUI_LOCAL_SERVER_PORTS": port})
    wait_for(lambda: _asked(listener), "a connection to the listener")
    assert factory.local_models is not None


def test_a_port_list_that_is_not_ports_is_refused_at_start(capsys):
    with pytest.raises(SystemExit):
        settings_from_args(["--local-server-ports", "8080,abc"], {})
    assert "--local-server-ports: 'abc' is not a port number" in capsys.readouterr().err
