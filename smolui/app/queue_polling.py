"""How often gradio's queue looks for work: calmer than its default, so that an idle server
does not burn CPU (`GradioUI.launch` applies it to the app it serves)."""

from __future__ import annotations

from typing import Any

QUEUE_POLL_S = 0.01  # how often gradio's queue looks for waiting events (its default: 1 ms)
PROGRESS_POLL_S = 0.05  # how often it looks for progress updates (its default: 10 ms)


def calm_queue_polling(demo: Any) -> None:
    """Let gradio's queue look for work every 10 ms instead of every 1 ms.

    The queue polls in a loop; at 1 ms an idle server burns about a tenth of a core and,
    under load, crowds the event loop that streams the pages' updates. A turn waits at
    most 10 ms more to start, which nobody sees next to a model call.

    The one place smolui touches gradio's private parts. Checked against gradio 6.31: the
    intervals are set only in `gradio.queueing.Queue.__init__`, and neither `Blocks.queue`
    nor `Blocks.launch` nor an environment variable sets them. A gradio without these
    attributes leaves its queue as it is.
    """
    queue = getattr(demo, "_queue", None)  # gradio private: see above
    if queue is None:
        return
    if getattr(queue, "sleep_when_free", None) is not None:  # gradio private: see above
        queue.sleep_when_free = max(queue.sleep_when_free, QUEUE_POLL_S)
    if getattr(queue, "progress_update_sleep_when_free", None) is not None:  # see above
        queue.progress_update_sleep_when_free = max(
            queue.progress_update_sleep_when_free, PROGRESS_POLL_S
        )
