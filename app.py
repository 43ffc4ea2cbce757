"""smolui: run the chat app. `python app.py --help` lists every option.

Reads CLI flags and the environment once into `Settings`, answers HTTP at once with a
starting page, builds the UI (one agent per conversation), serves it on the same socket,
opens the conversation store while browsers load the page, then loads the model in the
background (the first turn waits for it).
Works offline with no API key: the default model is SmolLM2-135M-Instruct through llama.cpp.
"""

from __future__ import annotations

import gc
import logging
import os
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager


def main(argv: Sequence[str] | None = None) -> None:
    """Parse the settings, answer HTTP at once, build the UI, then serve it until interrupted.

    Args:
        argv: Command-line arguments (default: `sys.argv[1:]`).
    """
    from smolui.app.settings import settings_from_args

    settings = settings_from_args(argv, os.environ)
    if settings.executor == "docker":  # without an engine every code step would fail: say so now
        from smolui.app.docker_engine import docker_engine_problem

        problem = docker_engine_problem()
        if problem:
            print(f"smolui: {problem}", file=sys.stderr)
            raise SystemExit(1)
    logging.basicConfig(
        level=os.environ.get("SMOLUI_LOG_LEVEL", "INFO").upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    # No usage analytics leave the machine unless the operator opts in.
    os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
    # SIGTERM from here on stops the app once it serves (`AppServer.wait`), not mid-start.
    from smolui.observability.server import on_sigterm

    stop = threading.Event()
    before = on_sigterm(stop)
    starting = open_starting_page(settings)  # HTTP answers from here on
    from smolui.app.gradio_import import unused_integrations_hidden
    from smolui.app.model_loader import ModelLoader

    loader = ModelLoader(settings.model)
    with collector_paused(), unused_integrations_hidden():  # see their docstrings
        ui = prepare_ui(settings, loader)
        if starting is not None:
            ui.listen_socket = starting.hand_over()
            ui.launch(prevent_thread_lock=True)
    if starting is None:  # gradio's own server (a share link): it binds the port itself
        if before is not None:  # gradio's own wait ends on SIGTERM as it always did
            signal.signal(signal.SIGTERM, before)
        if stop.is_set():
            raise SystemExit(0)  # SIGTERM came while the app started
        open_conversations(ui)
        start_model(settings, loader)
        ui.launch()
        return
    starting.release()  # the starting pages reload into the chat
    open_conversations(ui)  # meanwhile browsers load the page; its first event waits for it
    start_model(settings, loader)  # after serving: nothing competes with the start for CPU
    ui.server.wait(stop)  # until Ctrl+C or SIGTERM
    # Running turns stop at their next step boundary and save their stopped state (bounded
    # wait: GradioUI.close), then agents and executors close, and the store lets go of its
    # connections before the process ends.
    ui.close()
    logging.getLogger("smolui").info(
        "stopped: the server, the conversations and the store are closed"
    )


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while the app is built and starts serving.

    Building it makes about 150,000 objects that live as long as the app; with the collector
    on, it walks them hundreds of times meanwhile (0.4-0.8 CPU seconds, a tenth of the
    start). They are then frozen out of later collections (`gc.freeze`), which also keeps
    those collections short while the app serves; the few cycles left over from the start
    (about 1 MB) are kept rather than searched for.
    """
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.enable()


def open_conversations(ui: object) -> None:
    """Open the conversation store (SQLAlchemy, and Alembic on a first start: about 0.3 CPU
    seconds) once the chat serves; exit with the reason when it cannot be opened.

    Args:
        ui: The app's `GradioUI`.
    """
    from smolui.store import StoreUnavailableError

    try:
        with collector_paused():  # what it builds lives as long as the app, as above
            ui.open_store()
    except StoreUnavailableError as error:
        print(f"smolui: {error}", file=sys.stderr)
        ui.close()
        raise SystemExit(1) from None


def open_starting_page(settings: object):
    """A `StartingPage` on the app's address, or None where gradio's own server must bind it.

    Args:
        settings: A `smolui.app.settings.Settings`.
    """
    if settings.share:
        return None
    from smolui.app.starting_page import StartingPage

    try:
        return StartingPage(settings.host, settings.port)
    except OSError as error:
        where = f"{settings.host}:{settings.port}"
        reason = error.strerror or error
        print(
            f"smolui: cannot serve on {where}: {reason} (choose another --port?)", file=sys.stderr
        )
        raise SystemExit(1) from None


def prepare_ui(settings: object, loader: object):
    """Set up tracing and build the UI; exit with the reason when either is refused (the
    conversation store opens later, `open_conversations`, unless usage limits need it now).

    Args:
        settings: A `smolui.app.settings.Settings`.
        loader: The app's `ModelLoader` (started later).
    """
    from agents.errors import AgentConfigError
    from agents.observability.tracer import default_tracer

    try:
        default_tracer()  # traces as OTEL_* asks: set up now, or refused with the reason
    except AgentConfigError as error:
        print(f"smolui: {error}", file=sys.stderr)
        raise SystemExit(1) from None
    ui = build_ui(settings, loader)
    from smolui.auth import AuthSetupError
    from smolui.store import StoreUnavailableError

    try:
        ui.create_app()  # sets up sign-in (and limits): fail now, not on the first visit
    except (StoreUnavailableError, AuthSetupError) as error:
        print(f"smolui: {error}", file=sys.stderr)
        raise SystemExit(1) from None
    return ui


def build_ui(settings: object, loader: object):
    """The `GradioUI` for these settings; the model comes from `loader` once it has loaded.

    Args:
        settings: A `smolui.app.settings.Settings`.
        loader: A `smolui.app.model_loader.ModelLoader` for `settings.model`.
    """
    from smolui.app.factory import AgentFactory
    from smolui.app.gradio_ui import GradioUI

    scripted = settings.model.startswith("scripted:")
    factory = AgentFactory(settings, loader)
    label = (lambda: settings.model) if scripted else (lambda: loader.label)
    ui = GradioUI(factory, settings=settings, model_label=label)
    if not scripted:
        from smolui.observability.health import model_check

        ui.ready_checks["model"] = model_check(loader)  # /readyz: loaded (or set up)
    return ui


def start_model(settings: object, loader: object) -> None:
    """Start loading the model in the background (a scripted one is built on first use).

    Args:
        settings: A `smolui.app.settings.Settings`.
        loader: The app's `ModelLoader`.
    """
    if not settings.model.startswith("scripted:"):
        loader.start()


if __name__ == "__main__":
    sys.exit(main())
