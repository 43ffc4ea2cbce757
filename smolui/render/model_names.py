"""How a model is named where visitors see it (the page, the exports): a scripted file by its
file name only, never the server's path to it."""

from __future__ import annotations

from pathlib import PurePath

# The canned demo's spec; any other `scripted:` spec names someone's own file of replies.
DEMO_SPEC = "scripted:demo"


def is_demo_model(model_label: str) -> bool:
    """Whether the model is the scripted demo (canned answers, no real model): `scripted:demo`
    or a scripted model's label ("scripted", "scripted-test"), not a file of one's own replies.

    Args:
        model_label: The model's id or label ("scripted:demo", ...).
    """
    return model_label.startswith("scripted") and scripted_file(model_label) is None


def scripted_file(model_label: str) -> str | None:
    """The file name of a scripted model's replies ("replies.json"), or None for any other
    model (the demo included).

    Args:
        model_label: The model's id or label ("scripted:/srv/replies.json", ...).
    """
    kind, _, rest = model_label.partition(":")
    if kind != "scripted" or not rest or model_label == DEMO_SPEC:
        return None
    return PurePath(rest).name or rest


def model_name(model_label: str) -> str:
    """The model's label without a server path: "scripted:/srv/h7/replies.json" becomes
    "scripted:replies.json"; other labels are kept.

    Args:
        model_label: The model's id or label.
    """
    name = scripted_file(model_label)
    return model_label if name is None else f"scripted:{name}"
