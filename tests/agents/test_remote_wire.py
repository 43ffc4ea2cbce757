"""The kernel websocket's two framings: frames this side builds are read by jupyter_server's
own code and the other way round, malformed frames are refused, and an executor works on a
real gateway in either framing."""

from __future__ import annotations

import os

import pytest

from agents.errors import AgentExecutionError
from agents.executors.remote import JupyterExecutor, wire
from agents.executors.remote.gateway import GatewayKernel
from tests.kernel_gateway import KernelGateway, gateway_available
from tools import tool

needs_gateway = pytest.mark.skipif(
    not gateway_available(), reason="pip install jupyter_kernel_gateway"
)


def _session():
    from jupyter_client.session import Session

    return Session(username="test", key=b"k")


def test_a_v1_frame_is_read_by_jupyter_server_as_sent():
    from jupyter_server.services.kernels.connection.base import deserialize_msg_from_ws_v1

    session = _session()
    message = session.msg("execute_request", content={"code": "print('ü')", "silent": False})
    channel, parts = deserialize_msg_from_ws_v1(wire.encode_v1(message, "shell", session.pack))
    assert channel == "shell" and len(parts) == 4
    header, parent, metadata, content = map(session.unpack, parts)
    assert header["msg_id"] == message["header"]["msg_id"]
    assert header["msg_type"] == "execute_request"
    assert (parent, metadata) == ({}, {})
    assert content == {"code": "print('ü')", "silent": False}


def test_a_frame_from_jupyter_server_is_decoded_with_its_buffers():
    from jupyter_server.services.kernels.connection.base import serialize_msg_to_ws_v1

    session = _session()
    request = session.msg("execute_request", content={"code": "1"})
    reply = session.msg("stream", content={"name": "stdout", "text": "hi\n"}, parent=request)
    parts = [session.pack(reply[name]) for name in ("header", "parent_header", "metadata")]
    parts += [session.pack(reply["content"]), b"\x00raw"]
    decoded = wire.decode_v1(serialize_msg_to_ws_v1(parts, "iopub"), session.unpack)
    assert decoded["channel"] == "iopub" and decoded["msg_type"] == "stream"
    assert decoded["parent_header"]["msg_id"] == request["header"]["msg_id"]
    assert decoded["content"] == {"name": "stdout", "text": "hi\n"}
    assert decoded["buffers"] == [b"\x00raw"]


@pytest.mark.parametrize(
    "frame",
    [
        b"",
        (99).to_bytes(8, "little"),  # more offsets than the frame holds
        (6).to_bytes(8, "little") + bytes(48),  # offsets, but no parts
        (2**40).to_bytes(8, "little") + bytes(64),
    ],
)
def test_malformed_v1_frames_are_refused(frame):
    with pytest.raises(wire.MalformedMessage):
        wire.decode_v1(frame, _session().unpack)


def test_a_v1_frame_with_a_part_that_is_not_json_is_refused():
    session = _session()
    message = session.msg("status", content={"execution_state": "idle"})
    frame = wire.encode_v1(message, "iopub", session.pack).replace(b'"idle"', b'"idle\xff')
    with pytest.raises(wire.MalformedMessage):
        wire.decode_v1(frame, session.unpack)


@pytest.mark.parametrize("frame", ["[1, 2]", "{not json", '{"header": 3, "content": {}}'])
def test_malformed_legacy_frames_are_refused(frame):
    with pytest.raises(wire.MalformedMessage):
        wire.decode_legacy(frame)


@tool
def host_pid() -> int:
    """Returns the process id of whoever runs the tool."""
    return os.getpid()


@pytest.fixture(scope="module")
def legacy_gateway():
    """A gateway told to speak only the legacy JSON framing (as servers before jupyter_server 2)."""
    if not gateway_available():
        pytest.skip("pip install jupyter_kernel_gateway")
    server = KernelGateway(extra_args=("--ZMQChannelsWebsocketConnection.kernel_ws_protocol=",))
    yield server.start()
    server.stop()


def _framing(server: KernelGateway) -> str | None:
    kernel = GatewayKernel(server.url, server.token, request_timeout=30)
    try:
        kernel.start()
        return kernel.subprotocol
    finally:
        kernel.shutdown()


@pytest.mark.slow
@needs_gateway
@pytest.mark.parametrize("which", ["kernel_gateway", "legacy_gateway"])
def test_an_executor_works_in_either_framing(which, request):
    server = request.getfixturevalue(which)
    expected = wire.V1_PROTOCOL if which == "kernel_gateway" else None
    assert _framing(server) == expected
    executor = JupyterExecutor(server.url, server.token, timeout=20)
    try:
        executor.send_tools({"host_pid": host_pid})
        result = executor("print('out', 'ü')\n{'pid': host_pid(), 'big': 'x' * 200_000}")
        assert result.output == {"pid": os.getpid(), "big": "x" * 200_000}
        assert result.logs.strip() == "out ü"
        with pytest.raises(AgentExecutionError, match="ZeroDivisionError"):
            executor("1 / 0")
        final = executor("final_answer([1, 2])")
        assert final.is_final_answer and list(final.output) == [1, 2]
    finally:
        executor.close()
