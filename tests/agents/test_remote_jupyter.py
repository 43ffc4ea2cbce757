"""`executor_type="jupyter"` on a real Jupyter Kernel Gateway on loopback: a CodeAgent's steps
share a kernel, tools run on the host, plots come back, and lost kernels are reported."""

from __future__ import annotations

import hashlib
import importlib.util
import os
import threading

import pytest

from agents import CodeAgent, ScriptedModel
from agents.errors import AgentExecutionError
from agents.executors.remote import JupyterExecutor
from agents.executors.remote import execution as remote_execution
from tests.agents.moved_clock import MovedClock
from tests.kernel_gateway import KernelGateway, gateway_available
from tests.waiting import wait_for
from tools import tool

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not gateway_available(), reason="pip install jupyter_kernel_gateway"),
]


@pytest.fixture
def gateway(kernel_gateway):
    return kernel_gateway  # one gateway for the session (tests/conftest.py)


@tool
def host_pid() -> int:
    """Returns the process id of whoever runs the tool."""
    return os.getpid()


@tool
def shout(text: str) -> str:
    """Returns the text in capitals.

    Args:
        text: What to shout.
    """
    return text.upper()


def code(body: str) -> str:
    return f"Thought: go.\n<code>\n{body}\n</code>"


def make_agent(gateway: KernelGateway, replies: list[str], **kwargs) -> CodeAgent:
    return CodeAgent(
        tools=[host_pid, shout],
        model=ScriptedModel(replies),
        additional_authorized_imports=["*"],
        executor_type="jupyter",
        executor_kwargs={"url": gateway.url, "token": gateway.token, "timeout": 20, **kwargs},
        verbosity_level=-1,
    )


def test_steps_share_a_kernel_and_tools_run_on_the_host(gateway):
    kernels_before = gateway.kernel_count()
    agent = make_agent(
        gateway,
        [
            code("import os\ntotal = 40\nprint('kernel', os.getpid())"),
            code("loud = shout(text='hi')\nprint(loud, total)"),
            code("shout(42)"),
            code("final_answer((total + 2, host_pid(), loud))"),
            code("final_answer(total * 10)"),
        ],
    )
    try:
        assert isinstance(agent.executor, JupyterExecutor)
        assert agent.run("first") == (42, os.getpid(), "HI")
        steps = agent.memory.steps
        kernel_pid = int(steps[1].observations.split("kernel ")[1].split()[0])
        assert kernel_pid != os.getpid()
        assert "HI 40" in steps[2].observations
        assert "ToolError" in str(steps[3].error) and "text" in str(steps[3].error)
        assert agent.run("second turn", reset=False) == 400
        state = agent.executor.state
        assert state["total"] == 40 and state["loud"] == "HI" and "os" not in state
        assert agent.executor.isolation["kernel_id"]
        assert agent.executor.isolation["where"] == gateway.url
    finally:
        agent.close()
    wait_for(lambda: gateway.kernel_count() == kernels_before, "the kernel is deleted on close")


@pytest.mark.skipif(importlib.util.find_spec("matplotlib") is None, reason="needs matplotlib")
def test_a_plot_comes_back_as_a_step_image(gateway):
    agent = make_agent(
        gateway,
        [
            code(
                "import matplotlib.pyplot as plt\nplt.plot([1, 3, 2])\nplt.title('t')\nplt.show()"
            ),
            code("for i in range(22):\n    plt.figure(figsize=(1, 1))\n    plt.plot([i, 0])"),
            code("final_answer('done')"),
        ],
    )
    try:
        assert agent.run("plot") == "done"
        images = agent.memory.steps[1].observations_images
        assert images and images[0].size[0] > 100 and images[0].format == "PNG"
        many = agent.memory.steps[2]
        assert len(many.observations_images) == 20 and "first 20 images" in many.observations
    finally:
        agent.close()


def test_an_endless_loop_is_interrupted_and_the_model_told_variables_were_lost(gateway):
    agent = make_agent(
        gateway,
        [
            code("kept = 7\nwhile True:\n    pass"),
            code("print('kept' in globals())\nfinal_answer(shout('next'))"),
        ],
        timeout=6,  # the loop's budget; also the next step's, right after the kernel restart
    )
    try:
        assert agent.run("loop") == "NEXT"
        error = str(agent.memory.steps[1].error)
        assert "timed out after 6 seconds" in error and "variables" in error
        assert "False" in agent.memory.steps[2].observations
    finally:
        agent.close()


def test_a_killed_kernel_is_reported_and_replaced(gateway):
    agent = make_agent(
        gateway,
        [
            code("import os, signal\nfirst = os.getpid()\nos.kill(first, signal.SIGKILL)"),
            code("import os\nfinal_answer(os.getpid())"),
        ],
    )
    try:
        first_kernel = None
        assert not agent.executor.running
        agent.executor.start()
        assert agent.executor.running
        first_kernel = agent.executor.isolation["kernel_id"]
        answer = agent.run("die", reset=False)
        assert isinstance(answer, int) and answer != os.getpid()
        assert "kernel died" in str(agent.memory.steps[1].error)
        assert agent.executor.isolation["kernel_id"] != first_kernel
    finally:
        agent.close()


def test_interrupt_stops_a_running_step_and_keeps_variables(gateway):
    # A generous timeout: the step ends as "Interrupted", never as "timed out".
    executor = JupyterExecutor(gateway.url, gateway.token, timeout=120)
    started = threading.Event()
    try:
        executor.send_tools({"started": started_tool(started)})
        executor("kept = 5")
        stopper = threading.Thread(target=lambda: started.wait(60) and executor.interrupt())
        stopper.start()
        with pytest.raises(AgentExecutionError, match="Interrupted"):
            executor("import time\nstarted()\nwhile True:\n    time.sleep(0.05)")
        stopper.join()
        assert executor("kept").output == 5
        executor.send_variables({"given": {"rows": [1, 2]}})
        assert executor("given['rows'][1]").output == 2
        executor.reset()  # a restarted kernel: code's names gone, the agent's variables sent again
        assert list(executor("('kept' in globals(), given['rows'])").output) == [False, [1, 2]]
    finally:
        executor.close()


def started_tool(event: threading.Event):
    """A host tool the code calls to say it runs; the test waits for `event`."""

    @tool
    def started() -> None:
        """Tells the test the step is running."""
        event.set()

    return started


def test_time_in_host_tools_does_not_count_against_the_timeout(gateway, monkeypatch):
    clock = MovedClock()  # the execution's deadline and its tool accounting both read it
    monkeypatch.setattr(remote_execution, "time", clock)

    @tool
    def slow_echo(text: str) -> str:
        """Returns the text a minute later, on the execution's clock.

        Args:
            text: What to return.
        """
        clock.advance(60)
        return text

    executor = JupyterExecutor(gateway.url, gateway.token, timeout=30)
    try:
        executor.send_tools({"slow_echo": slow_echo})
        executor("pass")  # the kernel is ready
        assert executor("slow_echo('a') + slow_echo('b')").output == "ab"  # 2 min in tools
    finally:
        executor.close()


def test_uploads_are_copied_into_the_kernel_and_rollback_works(gateway, tmp_path):
    uploads = tmp_path / "uploads"
    uploads.mkdir()
    (uploads / "notes.txt").write_text("alpha beta")
    (uploads / "data.bin").write_bytes(bytes(range(256)) * 28_000)  # 7 MB: sent in pieces
    (uploads / "huge.bin").write_bytes(b"x" * 9_000_000)  # over the 8 MB cap
    executor = JupyterExecutor(
        gateway.url,
        gateway.token,
        additional_authorized_imports=["os", "hashlib"],
        read_only_paths=[str(uploads)],
        max_upload_mb=8,
    )
    try:
        executor.send_tools({})
        result = executor("import os\nsorted(os.listdir('uploads'))")
        assert result.output == ["data.bin", "notes.txt"]
        assert "huge.bin was not copied" in result.logs
        digest = "import hashlib\nhashlib.sha256(open('uploads/data.bin', 'rb').read()).hexdigest()"
        expected = hashlib.sha256((uploads / "data.bin").read_bytes()).hexdigest()
        assert executor(digest).output == expected
        assert executor("open('uploads/notes.txt').read()").output == "alpha beta"
        (uploads / "notes.txt").write_text("changed")
        assert executor("open('uploads/notes.txt').read()").output == "changed"
        assert "huge.bin" not in executor("1").logs  # said once
        executor("a = 1")
        executor.checkpoint()
        executor("a = 2\nb = 3")
        assert executor.rollback() is True
        assert list(executor("(a, 'b' in globals())").output) == [1, False]
    finally:
        executor.close()


def test_a_gateway_that_goes_away_is_a_clear_error_then_a_new_kernel_starts():
    server = KernelGateway().start()
    # Generous waits: a new kernel on a busy machine takes a while to be ready, and a lost
    # gateway is noticed at once (the connection is refused), not by waiting.
    executor = JupyterExecutor(server.url, server.token, timeout=60, request_timeout=120)
    try:
        executor.send_tools({})
        assert executor("x = 1\nx").output == 1
        port, token = server.port, server.token
        server.stop()
        with pytest.raises(AgentExecutionError) as lost:
            executor("x")
        message = str(lost.value)
        assert f"connection to the Jupyter gateway at {server.url} was lost" in message
        assert "next step starts a new one" in message and lost.value.state_lost
        restarted = KernelGateway(port=port, token=token).start()  # the same address
        try:
            assert executor("'x' in globals()").output is False
        finally:
            executor.close()
            restarted.stop()
    finally:
        server.stop()


class StandInDocker:
    """Stands in for `docker.DockerClient` (no engine here): "running" the container starts
    a real Kernel Gateway on loopback with the token from the container's environment."""

    def __init__(self) -> None:
        self.images = self
        self.containers = self
        self.specs: list[dict] = []
        self.removed: list[str] = []

    def get(self, name: str) -> str:  # images.get: the image exists
        return name

    def run(self, **spec):  # containers.run
        self.specs.append(spec)
        server = KernelGateway(token=spec["environment"]["KG_AUTH_TOKEN"]).start()
        return StandInContainer(self, server)


class StandInContainer:
    def __init__(self, client: StandInDocker, server: KernelGateway) -> None:
        self.client, self.server = client, server
        self.id = f"c0ffee{server.port:06d}"
        ports = {"8888/tcp": [{"HostIp": "127.0.0.1", "HostPort": str(server.port)}]}
        self.attrs = {"NetworkSettings": {"Ports": ports, "Networks": {}}}

    def reload(self) -> None:
        pass

    def remove(self, force: bool = False) -> None:
        self.client.removed.append(self.id)
        self.server.stop()


@pytest.mark.skipif(importlib.util.find_spec("docker") is None, reason="pip install docker")
def test_the_docker_executor_runs_code_in_the_container_it_starts_and_removes_it():
    from agents.executors.remote.docker import DockerExecutor

    engine = StandInDocker()
    executor = DockerExecutor(network="bridge", docker_client=engine, timeout=20)
    try:
        executor.send_tools({"shout": shout})
        assert executor("final_answer(shout('in the box'))").output == "IN THE BOX"
        spec = engine.specs[0]
        assert spec["user"] == "kernel" and spec["cap_drop"] == ["ALL"]
        assert executor.token not in " ".join(spec["command"])
        assert executor.isolation["level"].startswith("Docker container c0ffee")
    finally:
        executor.close()
    assert len(engine.removed) == 1 and executor.url == ""


def test_tools_sent_again_unchanged_are_not_reloaded_into_the_kernel(gateway):
    executor = JupyterExecutor(gateway.url, gateway.token, timeout=20)
    try:
        executor.send_tools({"shout": shout})
        assert executor("shout('a')").output == "A"
        executor("shout = 'replaced by the code'")
        executor.send_tools({"shout": shout})  # what an agent does before each run
        assert executor("shout").output == "replaced by the code"
        executor.send_tools({"shout": shout, "host_pid": host_pid})  # changed: loaded again
        assert executor("(shout('b'), host_pid())").output == ("B", os.getpid())
        executor.reset()  # a restarted kernel gets them again
        executor.send_tools({"shout": shout, "host_pid": host_pid})
        # The first step calls a tool at once: the gateway may not have connected the new
        # websocket's stdin channel to the restarted kernel yet (see the test below).
        assert executor("shout('c')").output == "C"
        assert executor("sorted(n for n in ('shout', 'host_pid') if n in globals())").output == [
            "host_pid",
            "shout",
        ]
    finally:
        executor.close()


RECONNECT_STDIN = """import time, zmq
channel = get_ipython().kernel.stdin_socket
endpoint = channel.last_endpoint
channel.unbind(endpoint)  # drops the gateway's connection; it reconnects in ~0.1 s
for attempt in range(400):
    try:
        channel.bind(endpoint)
        break
    except zmq.ZMQError:  # the old listener is still closing
        time.sleep(0.005)
shout('d')"""


def test_a_tool_call_waits_for_the_stdin_channel_to_connect(gateway):
    # Right after a kernel (re)starts, the gateway connects the websocket's stdin channel to
    # the kernel on its own schedule, and a ZeroMQ ROUTER drops a message for a peer not
    # connected yet: the call's input_request vanished and the step hung until its timeout
    # (8 restarts in 130 in a stress loop). Disconnecting the channel from inside the
    # kernel makes that window every time; a lost request would end the step as timed out.
    executor = JupyterExecutor(
        gateway.url, gateway.token, timeout=60, additional_authorized_imports=["time", "zmq"]
    )
    try:
        executor.send_tools({"shout": shout})
        executor("pass")  # the kernel is ready
        assert executor(RECONNECT_STDIN).output == "D"
    finally:
        executor.close()
