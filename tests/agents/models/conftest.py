"""Fixtures for backend tests: the bundled SmolLM2 file, llama.cpp servers, an Azure proxy."""

from __future__ import annotations

from pathlib import Path

import pytest
from model_servers import AzureProxy, LlamaServer

from agents.models.bundled import bundled_gguf_path


@pytest.fixture(scope="session")
def gguf_path() -> Path:
    return bundled_gguf_path()


@pytest.fixture(scope="session")
def llama_server(gguf_path: Path, tmp_path_factory: pytest.TempPathFactory):
    """One llama.cpp server for the whole session."""
    server = LlamaServer(gguf_path, tmp_path_factory.mktemp("llama") / "server.log").start()
    yield server
    server.kill()


@pytest.fixture
def own_llama_server(gguf_path: Path, tmp_path: Path):
    """A llama.cpp server for one test, which the test may kill and restart."""
    server = LlamaServer(gguf_path, tmp_path / "server.log").start()
    yield server
    server.kill()


@pytest.fixture
def azure_proxy(llama_server: LlamaServer):
    proxy = AzureProxy(llama_server.port, api_key="azure-test-key")
    proxy.thread.start()
    yield proxy
    proxy.server.shutdown()
    proxy.server.server_close()


@pytest.fixture
def hub_online(monkeypatch: pytest.MonkeyPatch) -> None:
    """Let huggingface_hub talk to loopback servers; the network guard still blocks the rest."""
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
