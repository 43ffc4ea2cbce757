"""The shared model, loaded in a background thread once the app serves (see app.py)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

logger = logging.getLogger(__name__)


class ModelLoader:
    """Builds the shared model in a background thread, so the page is usable at once.

    Args:
        spec: Model spec string ("local", "hf:...", ...); None for the default model.
        build: Turns a spec into a model (default: `agents.models.spec.model_from_spec`).
    """

    def __init__(self, spec: str | None, build: Callable[[str | None], Any] | None = None):
        self.spec = spec
        self._build = build or _model_from_spec
        self._model: Any = None
        self._error: BaseException | None = None
        self._done = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def start(self) -> None:
        """Start loading (idempotent)."""
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._load, name="smolui-model-loader", daemon=True
                )
                self._thread.start()

    def _load(self) -> None:
        try:
            self._model = self._build(self.spec)
            logger.info("model ready: %s", self._model.model_id or self.spec)
        except BaseException as error:  # reported to every turn that needs the model
            logger.exception("loading the model %r failed", self.spec)
            self._error = error
        finally:
            self._done.set()

    @property
    def ready(self) -> bool:
        return self._done.is_set() and self._error is None

    @property
    def label(self) -> str:
        """The model's id when loaded, else the spec and its state."""
        if self._model is not None:
            return str(self._model.model_id or self.spec)
        if self._error is not None:
            return f"{self.spec} (failed to load)"
        return f"{self.spec or 'local'} (loading…)"

    def get(self, timeout: float | None = None) -> Any:
        """The model, waiting for the load to finish.

        Args:
            timeout: Seconds to wait (None: as long as it takes).

        Raises:
            The load's own error, or TimeoutError.
        """
        self.start()
        if not self._done.wait(timeout):
            raise TimeoutError("the model is still loading")
        if self._error is not None:
            raise self._error
        return self._model


def _model_from_spec(spec: str | None) -> Any:
    from agents.models import spec as model_spec
    from agents.models.llama_cpp import LlamaCppModel

    model = (
        model_spec.default_model()
        if not spec or spec == "local"
        else model_spec.model_from_spec(spec)
    )
    if isinstance(model, LlamaCppModel):
        model.load()  # the weights too, here in the background, not in the first turn
    return model
