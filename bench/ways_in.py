"""What each way in adds to a turn: the page's API (gradio's client, /echo then /run) against
the OpenAI-compatible /v1 (the `openai` client, whole and streamed) and the MCP server (the
`mcp` client's `ask_agent`, in one session as MCP clients keep it), same scripted one-step
task, one app process on loopback.

    python bench/ways_in.py [--turns 20]

Prints the median and p90 wall time per turn of each, and each one's ratio to the page's.
"""

from __future__ import annotations

import argparse
import socket
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

ANSWER = "Thought: compute it.\n<code>\nfinal_answer(6 * 7)\n</code>"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _timed(turn: Callable[[], object], turns: int) -> list[float]:
    turn()  # warm: the first turn builds the conversation's agent
    seconds = []
    for _ in range(turns):
        started = time.perf_counter()
        turn()
        seconds.append(time.perf_counter() - started)
    return seconds


@asynccontextmanager
async def _mcp_session(url: str) -> AsyncIterator[Any]:
    """An initialized MCP client session with the app's MCP server."""
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async with (
        streamable_http_client(url) as streams,
        ClientSession(streams[0], streams[1]) as session,
    ):
        await session.initialize()
        yield session


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--turns", type=int, default=20)
    args = parser.parse_args()

    import anyio.from_thread
    import openai
    from gradio_client import Client

    from agents import CodeAgent, ScriptedModel
    from smolui.app.gradio_ui import GradioUI
    from smolui.app.settings import Settings

    folder = Path(tempfile.mkdtemp(prefix="smolui-ways-in-"))
    settings = Settings(model="scripted", executor="local", host="127.0.0.1", port=_free_port(),
                        data_dir=str(folder), upload_folder=str(folder / "uploads"),
                        mcp=True)  # fmt: skip

    def make_agent() -> CodeAgent:
        model = ScriptedModel([ANSWER], loop=True)
        return CodeAgent([], model, executor_type="local", verbosity_level=-1)

    ui = GradioUI(make_agent, settings=settings, model_label=lambda: "scripted")
    ui.launch(prevent_thread_lock=True, quiet=True)
    base = f"http://127.0.0.1:{settings.port}/"
    try:
        with (
            anyio.from_thread.start_blocking_portal() as portal,
            portal.wrap_async_context_manager(_mcp_session(base + "gradio_api/mcp/")) as session,
        ):
            page = Client(base, verbose=False)
            api = openai.OpenAI(base_url=base + "v1", api_key="local", max_retries=0)
            ask = [{"role": "user", "content": "What is 6 times 7?"}]

            def page_turn() -> None:
                page.predict(message={"text": "What is 6 times 7?", "files": []},
                             history=[], api_name="/echo")  # fmt: skip
                page.predict(api_name="/run")  # the turn starts from the chat the echo showed

            def whole_turn() -> None:
                api.chat.completions.create(model="smolui", messages=ask)

            def streamed_turn() -> None:
                for _ in api.chat.completions.create(model="smolui", messages=ask, stream=True):
                    pass

            def mcp_turn() -> None:
                task = {"task": "What is 6 times 7?"}
                result = portal.call(session.call_tool, "ask_agent", task)
                if result.is_error:
                    raise RuntimeError(result.content[0].text)

            results = {name: _timed(turn, args.turns) for name, turn in
                       (("page (gradio client)", page_turn), ("/v1 whole", whole_turn),
                        ("/v1 streamed", streamed_turn), ("MCP ask_agent", mcp_turn))}  # fmt: skip
    finally:
        ui.close()
    reference = statistics.median(results["page (gradio client)"])
    for name, seconds in results.items():
        median = statistics.median(seconds)
        p90 = sorted(seconds)[int(0.9 * (len(seconds) - 1))]
        print(f"{name:22s} median {median * 1000:7.1f} ms  p90 {p90 * 1000:7.1f} ms  "
              f"{median / reference:5.2f}x the page")  # fmt: skip


if __name__ == "__main__":
    main()
