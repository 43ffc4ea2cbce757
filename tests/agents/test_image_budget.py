"""The pixels of step images an agent keeps across a conversation stay under a cap."""

from __future__ import annotations

import base64
import io

from PIL import Image

from agents import ActionStep, CodeAgent, ScriptedModel
from agents.memory.image_budget import REDUCED_SIDE, keep_images_within, step_pixels
from agents.memory.io import FolderImageStore, steps_from_data, steps_to_data

SIDE = 1000  # each step shows one SIDE x SIDE image: 1 M pixels


def show(color: str) -> str:
    return (
        "Thought: draw.\n<code>\nfrom PIL import Image\n"
        f"display(Image.new('RGB', ({SIDE}, {SIDE}), '{color}'))\nprint('{color}')\n</code>"
    )


def drawing_agent(colors: list[str], cap: int) -> tuple[CodeAgent, ScriptedModel]:
    """A CodeAgent on the sandbox whose model shows one image per color, then answers."""
    replies = [show(c) for c in colors] + ["Thought: done.\n<code>\nfinal_answer('ok')\n</code>"]
    model = ScriptedModel(replies)
    agent = CodeAgent(
        tools=[], model=model, additional_authorized_imports=["PIL", "PIL.*"], verbosity_level=-1
    )
    agent.max_kept_image_pixels = cap
    return agent, model


def image_steps(agent: CodeAgent) -> list[ActionStep]:
    return [s for s in agent.memory.steps if "display(" in getattr(s, "code_action", "") or ""]


def model_images(messages: list[dict]) -> list[Image.Image]:
    """The images a model call was sent (data URLs, decoded)."""
    urls = [
        block["image_url"]["url"]
        for message in messages
        if isinstance(message.get("content"), list)
        for block in message["content"]
        if block.get("type") == "image_url"
    ]
    return [Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))) for url in urls]


def test_older_steps_keep_reduced_images_and_the_newest_stay_whole(tmp_path):
    agent, model = drawing_agent(["red", "green", "blue", "white"], cap=2_500_000)
    try:
        assert agent.run("draw") == "ok"
        steps = image_steps(agent)
        assert [s.observations_images[0].size for s in steps] == [
            (REDUCED_SIDE, REDUCED_SIDE),
            (REDUCED_SIDE, REDUCED_SIDE),
            (REDUCED_SIDE, REDUCED_SIDE),
            (SIDE, SIDE),
        ]
        assert sum(step_pixels(s) for s in steps) <= 2_500_000
        assert "reduced to at most 512 pixels" in steps[0].observations
        assert steps[0].observations.startswith("Execution logs:\nred\n")  # its output stays
        assert "reduced" not in steps[-1].observations
        assert steps[0].observations_images[0].getpixel((5, 5)) == (255, 0, 0)
        # The model's last call had the newest image whole, the older ones reduced.
        last = model_images(model.calls[-1])
        assert [image.size for image in last] == [s.observations_images[0].size for s in steps]
        # No step's record of what it sent the model holds an original any more.
        newest = steps[-1].observations_images[0]
        sent = [
            block["image"]
            for step in agent.memory.steps
            for message in getattr(step, "model_input_messages", None) or []
            if isinstance(message.content, list)
            for block in message.content
            if block.get("type") == "image"
        ]
        assert {image.size for image in sent if image is not newest} == {(REDUCED_SIDE,) * 2}
        # The memory, reduced images and all, saves and loads.
        store = FolderImageStore(tmp_path / "images")
        loaded = steps_from_data(steps_to_data(agent.memory.steps, store), store)
        sizes = [
            s.observations_images[0].size for s in loaded if getattr(s, "observations_images", None)
        ]
        assert sizes == [s.observations_images[0].size for s in steps]
    finally:
        agent.close()


def test_past_the_cap_the_oldest_steps_lose_their_images_with_a_note():
    agent, model = drawing_agent(["red", "green", "blue"], cap=1_200_000)
    try:
        assert agent.run("draw") == "ok"
        steps = image_steps(agent)
        assert [s.observations_images is None for s in steps] == [True, True, False]
        assert "no longer kept" in steps[0].observations
        assert steps[-1].observations_images[0].size == (SIDE, SIDE)
        assert [image.size for image in model_images(model.calls[-1])] == [(SIDE, SIDE)]
        # Steps 2 and 3 had each sent the model an image dropped since (that of 1, of 2).
        notes = [
            block.get("text")
            for step in image_steps(agent)
            for message in step.model_input_messages
            for block in message.content
        ]
        assert notes.count("[an image no longer kept]") == 2
        # A later turn of the same conversation goes on with the cap.
        model.add(show("black"), "Thought: done.\n<code>\nfinal_answer('again')\n</code>")
        assert agent.run("more", reset=False) == "again"
        steps = image_steps(agent)
        assert [s.observations_images is None for s in steps] == [True, True, True, False]
    finally:
        agent.close()


def test_values_that_are_not_images_count_nothing_and_stay():
    steps = [
        ActionStep(step_number=1, observations_images=["not an image"]),
        ActionStep(step_number=2, observations_images=[Image.new("RGB", (600, 600))]),
        ActionStep(step_number=3, observations_images=[Image.new("RGB", (600, 600))]),
    ]
    assert keep_images_within(steps, 400_000) == 360_000
    assert steps[0].observations_images == ["not an image"]
    assert steps[1].observations_images is None
    assert steps[2].observations_images[0].size == (600, 600)
