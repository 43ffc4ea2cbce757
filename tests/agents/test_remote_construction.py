"""Docker, E2B and Modal executors without their engines (none here): construction, the
container spec, and the clear errors a missing SDK, key or engine gives."""

from __future__ import annotations

import importlib.util
import sys

import pytest

from agents import CodeAgent, ScriptedModel
from agents.errors import AgentConfigError, AgentExecutionError
from agents.executors import EXECUTOR_TYPES, create_executor
from agents.executors.remote.docker import DOCKERFILE, DockerExecutor, container_spec
from agents.executors.remote.jupyter import JupyterExecutor
from agents.executors.remote.provisioned import GATEWAY_PORT

HAS_DOCKER_SDK = importlib.util.find_spec("docker") is not None


def test_every_remote_type_is_known_to_the_factory():
    assert {"jupyter", "docker", "e2b", "modal"} <= set(EXECUTOR_TYPES)
    with pytest.raises(AgentConfigError, match="jupyter"):
        create_executor("kubernetes")


def test_jupyter_needs_a_url_and_reads_it_from_the_environment(monkeypatch):
    monkeypatch.delenv("SMOLUI_EXECUTOR_URL", raising=False)
    with pytest.raises(AgentConfigError, match="SMOLUI_EXECUTOR_URL"):
        create_executor("jupyter")
    with pytest.raises(AgentConfigError, match="URL"):
        JupyterExecutor("ftp://example")
    monkeypatch.setenv("SMOLUI_EXECUTOR_URL", "http://127.0.0.1:9/")
    monkeypatch.setenv("SMOLUI_EXECUTOR_TOKEN", "t0k")
    executor = create_executor("jupyter", timeout=5)
    assert (executor.url, executor.token) == ("http://127.0.0.1:9", "t0k")
    assert executor.isolation["where"] == "http://127.0.0.1:9"
    assert executor.isolation["kernel_id"] is None  # reading the report starts nothing
    executor.close()


def test_an_unreachable_gateway_is_a_clear_step_error(monkeypatch):
    executor = JupyterExecutor("http://127.0.0.1:9", "t", timeout=5, request_timeout=2)
    try:
        with pytest.raises(AgentExecutionError, match="unreachable") as lost:
            executor("1 + 1")
        assert lost.value.state_lost
        with pytest.raises(AgentConfigError, match="could not start"):
            executor.start()
    finally:
        executor.close()


def test_bad_limits_are_refused_at_construction():
    with pytest.raises(AgentConfigError, match="max_tool_seconds"):
        JupyterExecutor("http://127.0.0.1:9", max_tool_seconds=-1)
    with pytest.raises(AgentConfigError, match="positive"):
        JupyterExecutor("http://127.0.0.1:9", timeout=0)


def test_the_import_policy_is_checked_before_anything_is_sent():
    executor = JupyterExecutor("http://127.0.0.1:9", "t", additional_authorized_imports=["math"])
    with pytest.raises(AgentExecutionError, match="Import of 'socket' is not allowed"):
        executor("import socket")
    assert executor.isolation["kernel_id"] is None


def test_the_container_spec_has_no_network_and_no_privileges():
    spec = container_spec("img:1", "secret", memory_mb=512, cpus=1.5, pids_limit=64)
    assert spec["image"] == "img:1" and spec["environment"] == {"KG_AUTH_TOKEN": "secret"}
    assert "secret" not in " ".join(spec["command"])  # not visible in `ps` or `docker ps`
    assert spec["network_mode"] == "none" and "ports" not in spec
    assert spec["cap_drop"] == ["ALL"] and "no-new-privileges" in spec["security_opt"]
    assert spec["read_only"] is True and spec["user"] == "kernel"
    assert spec["mem_limit"] == spec["memswap_limit"] == "512m"
    assert spec["nano_cpus"] == 1_500_000_000 and spec["pids_limit"] == 64
    assert "/home/kernel" in spec["tmpfs"]
    opened = container_spec("img:1", "secret", network="bridge")
    assert opened["ports"] == {f"{GATEWAY_PORT}/tcp": ("127.0.0.1", None)}
    assert f"--port={GATEWAY_PORT}" in opened["command"]


def test_the_dockerfile_installs_the_gateway_and_drops_root():
    text = DOCKERFILE.read_text()
    assert "jupyter_kernel_gateway" in text and "ipykernel" in text
    assert "USER kernel" in text and "kernelgateway" in text


@pytest.mark.skipif(not HAS_DOCKER_SDK, reason="pip install docker")
def test_docker_without_an_engine_fails_the_step_clearly(monkeypatch):
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    agent = CodeAgent(
        [],
        ScriptedModel(["<code>\nx = 1\n</code>", "<code>\nfinal_answer(2)\n</code>"]),
        executor_type="docker",
        executor_kwargs={"memory_mb": 256},
        verbosity_level=-1,
        max_steps=1,
    )
    try:
        assert isinstance(agent.executor, DockerExecutor)
        assert agent.executor.image is None  # the kernel image, built on first use
        assert agent.executor.spec["mem_limit"] == "256m"
        assert "not started" in agent.executor.isolation["level"]
        agent.run("go")
        assert "Docker is not reachable" in str(agent.memory.steps[1].error)
    finally:
        agent.close()


def test_docker_limits_are_checked_at_construction():
    with pytest.raises(AgentConfigError, match="memory_mb"):
        DockerExecutor(memory_mb=16, docker_client=object())


def test_missing_sdks_say_how_to_install_them(monkeypatch):
    for module in ("docker", "e2b_code_interpreter", "modal"):
        monkeypatch.setitem(sys.modules, module, None)  # as if not installed
    with pytest.raises(AgentConfigError, match="pip install docker"):
        create_executor("docker")
    with pytest.raises(AgentConfigError, match="pip install e2b-code-interpreter"):
        create_executor("e2b")
    with pytest.raises(AgentConfigError, match="pip install modal"):
        create_executor("modal")


def test_missing_keys_say_where_to_put_them(monkeypatch, tmp_path):
    fake = type(sys)("fake_sdk")
    monkeypatch.setitem(sys.modules, "e2b_code_interpreter", fake)
    monkeypatch.setitem(sys.modules, "modal", fake)
    monkeypatch.delenv("E2B_API_KEY", raising=False)
    monkeypatch.delenv("MODAL_TOKEN_ID", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    with pytest.raises(AgentConfigError, match="E2B_API_KEY"):
        create_executor("e2b")
    with pytest.raises(AgentConfigError, match="MODAL_TOKEN_ID"):
        create_executor("modal")
    monkeypatch.setenv("E2B_API_KEY", "e2b_test")
    e2b = create_executor("e2b", timeout=5)
    assert e2b.api_key == "e2b_test" and "microVM" in e2b.isolation["level"]
    assert e2b.token and e2b.url == ""  # its own gateway token; no URL until provisioned
