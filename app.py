"""smolui: run the chat app. `python app.py --help` lists every option.

Reads CLI flags and the environment once into `Settings`, starts loading the model in the
background (the page is usable at once), builds one agent per conversation, and serves.
Works offline with no API key: the default model is SmolLM2-135M-Instruct through llama.cpp.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> None:
    """Parse the settings, build the UI and serve until interrupted.

    Args:
        argv: Command-line arguments (default: `sys.argv[1:]`).
    """
    from smolui.settings import settings_from_args

    settings = settings_from_args(argv, os.environ)
    logging.basicConfig(
        level=os.environ.get("SMOLUI_LOG_LEVEL", "INFO").upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    # No usage analytics leave the machine unless the operator opts in.
    os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
    from agents.errors import AgentConfigError
    from agents.tracing import default_tracer

    try:
        default_tracer()  # traces as OTEL_* asks: set up now, or refused with the reason
    except AgentConfigError as error:
        print(f"smolui: {error}", file=sys.stderr)
        raise SystemExit(1) from None
    ui = build_ui(settings)
    from smolui.store import StoreUnavailableError

    try:
        ui.create_app()  # opens the conversation store: fail now, not on the first visit
    except StoreUnavailableError as error:
        print(f"smolui: {error}", file=sys.stderr)
        raise SystemExit(1) from None
    ui.launch()


def build_ui(settings: object):
    """The `GradioUI` for these settings, with the model loading in the background.

    Args:
        settings: A `smolui.settings.Settings`.
    """
    from smolui.factory import AgentFactory
    from smolui.gradio_ui import GradioUI
    from smolui.model_loader import ModelLoader

    loader = ModelLoader(settings.model)
    if not settings.model.startswith("scripted:"):
        loader.start()
    factory = AgentFactory(settings, loader)
    label = (
        (lambda: settings.model)
        if settings.model.startswith("scripted:")
        else (lambda: loader.label)
    )
    ui = GradioUI(factory, settings=settings, model_label=label)
    if not settings.model.startswith("scripted:"):
        from smolui.observability.health import model_check

        ui.ready_checks["model"] = model_check(loader)  # /readyz: loaded (or set up)
    return ui


if __name__ == "__main__":
    sys.exit(main())
