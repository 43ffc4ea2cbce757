"""The offline candidates of `bench/small_model.py --model`: building one, and the figures that
are not per task (load time, memory, size on disk, how busy the machine was).

Run one model per process (`--model smollm2-135m`, then `--model gemma3-270m`), so that the
peak memory is that model's alone.
"""

from __future__ import annotations

import os
import resource
import time
from importlib import metadata
from typing import Any


def build_model(name: str, threads: int | None) -> tuple[Any, float]:
    """A bundled model (or `llamacpp:/path.gguf`) loaded, and the seconds the load took.

    Args:
        name: A name of `agents.models.bundled.BUNDLED_MODELS`, or "llamacpp:" and a GGUF path.
        threads: llama.cpp threads (None: its own choice).
    """
    from agents.models.bundled import bundled_gguf_path
    from agents.models.spec import default_model

    options: dict[str, Any] = {"n_threads": threads} if threads else {}
    start = time.perf_counter()
    path = name.partition(":")[2] if name.startswith("llamacpp:") else bundled_gguf_path(name)
    model = default_model(model_path=path, **options)
    model.load()
    return model, time.perf_counter() - start


def disk_mb(name: str) -> str:
    """Megabytes of GGUF data the model's packages install (chunks included), or "?"."""
    from agents.models.bundled import BUNDLED_MODELS

    model = BUNDLED_MODELS.get(name)
    if model is None:
        return "?"
    top = metadata.distribution(model.requirement.split("==")[0])
    # The chunk packages of a split model are its own requirements; a model's other
    # requirements (a CLI, say) hold no .gguf data and add nothing here.
    names = [top.metadata["Name"]] + [req.split("=")[0].split(";")[0] for req in top.requires or []]
    total = 0
    for dist_name in names:
        try:
            dist = metadata.distribution(dist_name.strip())
        except metadata.PackageNotFoundError:
            continue
        total += sum(
            os.path.getsize(dist.locate_file(file))
            for file in dist.files or []
            if ".gguf" in file.name
        )
    return f"{total / 1e6:.0f}"


def peak_rss_mb() -> float:
    """This process's peak resident memory so far, in MB (the sandbox's workers not counted)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def load_average() -> str:
    """The machine's 1, 5 and 15 minute load averages, and its CPU count."""
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} CPUs"
