"""Conversations untouched for longer than `--retention-days` are deleted, with their files,
at start and then every hour."""

from __future__ import annotations

import logging
import threading
from typing import Any

logger = logging.getLogger(__name__)


def start_retention(store: Any, days: float, interval_s: float = 3600.0) -> Any:
    """Delete conversations untouched for `days` days now, then every `interval_s` seconds.

    Args:
        store: The conversation store.
        days: Age limit in days.
        interval_s: Seconds between purges.
    """

    def purge_forever() -> None:
        while True:
            try:
                removed = store.purge_older_than(days)
                if removed:
                    logger.info(
                        "retention: deleted %d conversations older than %s days", removed, days
                    )
            except Exception:
                logger.exception("retention purge failed")
            if stop.wait(interval_s):
                return

    stop = threading.Event()
    thread = threading.Thread(target=purge_forever, name="smolui-retention", daemon=True)
    thread.start()
    return stop
