"""A resumed conversation holds its step images within the agent's cap, and the store keeps
on disk only the memory images its saved steps still name.

Real parts: the conversation store on a SQLite file (and on the real PostgreSQL), the
registry, keeper and page handlers, a real CodeAgent on the local executor, PIL images in its
memory steps; only the model is scripted.
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image

from agents.loop.code_agent import CodeAgent
from agents.memory.image_budget import REDUCED_SIDE, keep_images_within, step_pixels
from agents.memory.steps import ActionStep, Timing
from agents.models.scripted import ScriptedModel
from smolui.sessions import SessionRegistry
from smolui.store import open_store
from tests.smolui.app_process import AppProcess

SIDE = 1000  # each image step shows one SIDE x SIDE image: 1 M pixels
CAP = 2_500_000  # room for two whole images and some reduced ones
DRAW = (
    "<code>\nfrom PIL import Image\nfinal_answer(Image.new('RGB', (8, 8), (200, 40, 40)))\n</code>"
)


class App(AppProcess):
    """One app process on a data folder, whose agents keep at most `cap` pixels of images."""

    def __init__(self, url: str, data: Path, cap: int):
        self.cap = cap
        super().__init__(
            SessionRegistry(self._agent, data / "uploads", media_root=data / "media"),
            open_store(data, url, data / "uploads", data / "media"),
            [str(data / "media")],
        )

    def _agent(self, upload_dir: Path) -> CodeAgent:
        agent = CodeAgent(
            [],
            ScriptedModel([DRAW], loop=True),
            executor_type="local",
            additional_authorized_imports=["PIL", "PIL.*"],
            verbosity_level=-1,
        )
        agent.max_kept_image_pixels = self.cap
        return agent


def image_step(number: int, image: Image.Image) -> ActionStep:
    return ActionStep(
        step_number=number,
        timing=Timing(start_time=0.0, end_time=1.0),
        observations=f"showed image {number}",
        observations_images=[image],
    )


def square(color: str) -> Image.Image:
    return Image.new("RGB", (SIDE, SIDE), color)


def image_steps(agent: CodeAgent) -> list[ActionStep]:
    """The steps `image_step` made (the drawing turn's step shows a small image too)."""
    return [
        s
        for s in agent.memory.steps
        if isinstance(s, ActionStep) and (s.observations or "").startswith("showed image")
    ]


def chat_images(chat: list) -> list[Path]:
    found = []
    for message in chat:
        content = message["content"]
        for item in content if isinstance(content, list) else [content]:
            file = item.get("file", item) if isinstance(item, dict) else None
            if isinstance(file, dict) and str(file.get("path", "")).endswith(".png"):
                found.append(Path(file["path"]))
    return sorted(set(found))


def saved_with_images(app: App, colors: list[str]) -> tuple[str, list, dict]:
    """A conversation whose turn drew an image in the chat, then whose memory got one
    SIDE x SIDE image step per color (as if the agent had a larger cap then), saved."""
    conversation_id, chat, state, _ = app.pages.load(None)
    chat = app.send("draw a red square", conversation_id, chat)
    session = app.registry.get(conversation_id)
    steps = session.agent.memory.steps
    steps.extend(image_step(len(steps) + i, square(c)) for i, c in enumerate(colors))
    assert app.keeper.save(session, chat)
    return conversation_id, chat, state


def test_a_resumed_conversation_holds_its_images_within_the_cap(store_url, tmp_path):
    data = tmp_path / "data"
    first = App(store_url, data, cap=10**9)
    conversation_id, chat, state = saved_with_images(first, ["red", "green", "blue", "white"])
    first.close()

    second = App(store_url, data, cap=CAP)
    assert second.pages.load(state)[0] == conversation_id
    agent = second.registry.get(conversation_id).agent  # built now, its memory restored
    steps = image_steps(agent)
    assert len(steps) == 4  # the stored memory came back, every step with its image
    assert sum(step_pixels(s) for s in steps) <= CAP
    assert steps[0].observations_images[0].size == (REDUCED_SIDE, REDUCED_SIDE)
    assert steps[0].observations_images[0].getpixel((5, 5)) == (255, 0, 0)
    assert "reduced to at most 512 pixels" in steps[0].observations
    assert steps[-1].observations_images[0].size == (SIDE, SIDE)  # the newest stays whole
    second.close()


def test_the_full_size_files_of_reduced_images_go_when_the_memory_is_saved_again(
    store_url, tmp_path
):
    data = tmp_path / "data"
    app = App(store_url, data, cap=10**9)
    # "white" twice: its first step is reduced, but the newest still names the full file.
    conversation_id, chat, state = saved_with_images(app, ["white", "green", "blue", "white"])
    session = app.registry.get(conversation_id)
    folder = app.keeper.store.image_dir(session.folder)
    sizes = sorted(Image.open(p).size for p in folder.iterdir())
    assert sizes == [(8, 8)] + [(SIDE, SIDE)] * 3  # the drawing turn's, then one per content
    shown = chat_images(chat)
    assert shown and all(p.is_file() for p in shown)

    keep_images_within(session.agent.memory.steps, CAP)  # what the agent does after a step
    assert app.keeper.save(session, chat)
    sizes = sorted(Image.open(p).size for p in folder.iterdir())
    # Kept: the newest's whole white square and the reduced copies; gone: green and blue whole.
    assert sizes == [(8, 8)] + [(REDUCED_SIDE, REDUCED_SIDE)] * 3 + [(SIDE, SIDE)]
    assert all(p.is_file() for p in shown)  # the chat's images are other files
    app.close()

    again = App(store_url, data, cap=10**9)  # a restart: memory and chat come back whole
    _, restored, _, _ = again.pages.load(state)
    assert chat_images(restored) == shown and "no longer available" not in str(restored)
    steps = image_steps(again.registry.get(conversation_id).agent)
    assert [s.observations_images[0].size for s in steps] == [(REDUCED_SIDE,) * 2] * 3 + [
        (SIDE, SIDE)
    ]
    assert [s.observations_images[0].getpixel((1, 1)) for s in steps] == [
        (255, 255, 255),
        (0, 128, 0),
        (0, 0, 255),
        (255, 255, 255),
    ]
    again.close()
