"""`RateLimiter`: calls spaced by 1/per_second, on a fake clock (no real sleeping)."""

from __future__ import annotations

import pytest

from tools import rate_limit
from tools.rate_limit import RateLimiter
from tools.search_apis import ApiWebSearchTool
from tools.web_search import WebSearchTool


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0
        self.slept: list[float] = []

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    fake = FakeClock()
    monkeypatch.setattr(rate_limit.time, "monotonic", fake.monotonic)
    monkeypatch.setattr(rate_limit.time, "sleep", fake.sleep)
    return fake


def test_calls_are_spaced_by_the_interval(clock: FakeClock) -> None:
    limiter = RateLimiter(per_second=4)
    limiter.wait()
    limiter.wait()
    clock.now += 0.1
    limiter.wait()
    assert clock.slept == [pytest.approx(0.25), pytest.approx(0.15)]


def test_no_limit_never_sleeps(clock: FakeClock) -> None:
    for per_second in (None, 0):
        limiter = RateLimiter(per_second)
        limiter.wait()
        limiter.wait()
    assert clock.slept == []


def test_both_search_tools_share_the_limiter() -> None:
    ddg = WebSearchTool(rate_limit=2.0)
    brave = ApiWebSearchTool(api_key="k", rate_limit=4.0)
    assert isinstance(ddg.rate_limiter, RateLimiter) and ddg.min_interval == 0.5
    assert isinstance(brave.rate_limiter, RateLimiter) and brave.min_interval == 0.25
