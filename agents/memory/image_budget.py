"""A cap on the pixels of step images an agent keeps in memory across a conversation.

The sandbox caps the images of one step (`BudgetLimits.max_pixels`), but every step keeps its
images (`ActionStep.observations_images`, decoded PIL images) for as long as the conversation
lives: 40 M pixels are about 160 MB, so twenty such steps hold gigabytes in the app. After each
step the agent calls `keep_images_within`: past the cap, the oldest steps' images are replaced
by reduced copies (at most `REDUCED_SIDE` pixels a side), and when those still do not fit, the
oldest steps lose their images. Each changed step says so in its observations, so the model
(and whoever reads the memory later) knows why an earlier image is small or gone.

The newest step with images always keeps them whole: the model sees the latest images as they
were made. The UI shows each step's images when the step ends, before any later step reduces
them; a store that saves the memory writes the reduced copies, which load like any image.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any

from agents.memory.steps import ActionStep, PlanningStep
from agents.models.messages import ChatMessage

# Three steps at the sandbox's per-step cap (`BudgetLimits.max_pixels`, 40 M pixels): about
# 480 MB of decoded RGBA images per conversation at most.
MAX_KEPT_IMAGE_PIXELS = 120_000_000
# The longest side of an image an older step keeps once the cap is reached.
REDUCED_SIDE = 512


def keep_images_within(steps: Iterable[Any], max_pixels: int = MAX_KEPT_IMAGE_PIXELS) -> int:
    """Reduce, then drop, the oldest steps' images until all steps' images together have at
    most `max_pixels` pixels (the newest step with images keeps them whole). Returns the
    pixels kept.

    The messages each later step sent the model (`model_input_messages`) hold the same
    images: they get the reduced copies too (a text note for a dropped image), or the
    originals would stay in memory through them. Each change assigns the step's fields
    (never edits them in place), so prompts and saved memory notice it
    (`agents.memory.step_tracking`); `model_input_messages`, which neither reads, is set quietly.

    Args:
        steps: The memory's steps, oldest first (`agent.memory.steps`).
        max_pixels: The cap.
    """
    steps = list(steps)
    with_images = [s for s in steps if isinstance(s, ActionStep) and s.observations_images]
    total = sum(step_pixels(step) for step in with_images)
    older = with_images[:-1]
    replaced: dict[int, tuple[Any, Any]] = {}  # id of an old image: (it, its replacement)
    for step in older:
        if total > max_pixels:
            before = step_pixels(step)
            _reduce(step, replaced)
            total += step_pixels(step) - before
    for step in older:
        pixels = step_pixels(step)
        if total > max_pixels and pixels:
            total -= pixels
            _drop(step, replaced)
    if replaced:
        _replace_in_inputs(steps, replaced)
    return total


def step_pixels(step: ActionStep) -> int:
    """Pixels of all the step's observation images (values that are not images count 0)."""
    return sum(_pixels(image) for image in step.observations_images or [])


def _reduce(step: ActionStep, replaced: dict[int, tuple[Any, Any]]) -> None:
    """Replace the step's large images by reduced copies (nothing when none is large)."""
    images = list(step.observations_images or [])
    reduced = [_reduced(image) for image in images]
    changes = [(old, new) for old, new in zip(images, reduced, strict=True) if new is not old]
    if not changes:
        return
    replaced.update((id(old), (old, new)) for old, new in changes)
    step.observations_images = reduced
    _note(
        step,
        f"[{len(changes)} of this step's images {'was' if len(changes) == 1 else 'were'} "
        f"reduced to at most {REDUCED_SIDE} pixels a side, to bound the conversation's memory]",
    )


def _drop(step: ActionStep, replaced: dict[int, tuple[Any, Any]]) -> None:
    images = list(step.observations_images or [])
    dropped = {id(image) for image in images}
    for key, (old, new) in list(replaced.items()):
        if id(new) in dropped:  # reduced earlier in this pass: the messages hold `old`
            replaced[key] = (old, None)
    replaced.update((id(image), (image, None)) for image in images)
    step.observations_images = None
    _note(
        step,
        f"[this step's {len(images)} image{'' if len(images) == 1 else 's'} no longer kept, to "
        "bound the conversation's memory]",
    )


def _replace_in_inputs(steps: list[Any], replaced: dict[int, tuple[Any, Any]]) -> None:
    """Give the steps' `model_input_messages` the replacements of the `replaced` images."""
    for step in steps:
        if not isinstance(step, (ActionStep, PlanningStep)) or not step.model_input_messages:
            continue
        messages = [_replaced_in(message, replaced) for message in step.model_input_messages]
        if any(
            new is not old for new, old in zip(messages, step.model_input_messages, strict=True)
        ):
            # Set without a new stamp: neither prompts (`to_messages`) nor saved memory
            # (`memory_io`) read this field, and a new stamp would have the store encode the
            # step's images again for nothing.
            object.__setattr__(step, "model_input_messages", messages)


def _replaced_in(message: Any, replaced: dict[int, tuple[Any, Any]]) -> Any:
    """`message`, or a copy of it whose replaced images are swapped (or noted, if dropped)."""
    content = message.content if isinstance(message, ChatMessage) else None
    if not isinstance(content, list) or not any(
        block.get("type") == "image" and id(block.get("image")) in replaced for block in content
    ):
        return message
    blocks = []
    for block in content:
        old, new = replaced.get(id(block.get("image")), (None, None))
        if block.get("type") != "image" or old is not block.get("image"):
            blocks.append(block)
        elif new is None:
            blocks.append({"type": "text", "text": "[an image no longer kept]"})
        else:
            blocks.append({**block, "image": new})
    return dataclasses.replace(message, content=blocks)


def _note(step: ActionStep, note: str) -> None:
    step.observations = f"{step.observations}\n{note}" if step.observations else note


def _reduced(image: Any) -> Any:
    """A copy of `image` of at most `REDUCED_SIDE` pixels a side; `image` itself when it is
    small already or not an image."""
    raw = _raw(image)
    if raw is None or max(raw.size) <= REDUCED_SIDE:
        return image
    from PIL import Image

    width, height = raw.size
    scale = REDUCED_SIDE / max(width, height)
    size = (max(1, round(width * scale)), max(1, round(height * scale)))
    return raw.resize(size, Image.Resampling.LANCZOS, reducing_gap=3.0)


def _pixels(image: Any) -> int:
    raw = _raw(image)
    return 0 if raw is None else raw.size[0] * raw.size[1]


def _raw(image: Any) -> Any:
    """The PIL image behind an image value (an `AgentImage` keeps it behind `to_raw`), or
    None for a value that is neither."""
    from PIL import Image

    from tools.agent_types import raw_image

    image = raw_image(image)
    return image if isinstance(image, Image.Image) else None
