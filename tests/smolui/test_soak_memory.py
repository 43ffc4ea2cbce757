"""A few hundred turns over a few conversations on one app process: after warm-up, the app's
memory grows by each conversation's own history only, and it keeps no more open files.

Real parts: the app in its own process (scripted one-step model, in-process executor, a real
store), driven through `/v1/chat/completions` by `bench/soak.py`. Measured in bytes and
descriptors per turn, never in time.
"""

from __future__ import annotations

import pytest

from bench.soak import running_app, slope_per_turn, soak

pytestmark = pytest.mark.slow

TURNS, CONVERSATIONS, EVERY = 300, 8, 50
MOST_BYTES_PER_TURN = 100_000  # the issue measured ~440 kB per turn leaked; history is ~20 kB
MOST_NEW_FDS = 8


def test_memory_and_open_files_stay_bounded_over_hundreds_of_turns(tmp_path):
    with running_app(tmp_path / "data") as (url, pid):
        samples = list(soak(url, pid, TURNS, CONVERSATIONS, EVERY))
    after_warm_up = samples[2:]
    figures = [(s.turns, s.rss // 1000, s.fds) for s in samples]
    assert len(after_warm_up) == TURNS // EVERY - 1, figures
    assert slope_per_turn(after_warm_up) < MOST_BYTES_PER_TURN, f"(turns, kB, fds): {figures}"
    assert max(s.fds for s in after_warm_up) - after_warm_up[0].fds <= MOST_NEW_FDS, figures
