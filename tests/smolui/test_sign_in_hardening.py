"""Sign-in as an attacker of a public app sees it: timing of names, floods of guesses, a foreign
site reading a signed-in user's data. Work is counted (bcrypt calls, checks at once), never
timed."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import bcrypt
import httpx
import pytest

from smolui.auth import PasswordBook, hash_password
from smolui.auth.passwords import hash_rounds
from tests.e2e.harness import ScriptedApp
from tests.waiting import wait_for

ALICE, CAROL = ("alice", "wonderland"), ("carol", "chess")


class CountingBcrypt:
    """Stands in for `bcrypt.checkpw`: counts calls, the hashes' costs, and calls at once; a
    closed `gate` holds every call until the test opens it."""

    def __init__(self):
        self.costs: list[int] = []
        self.running = self.most_at_once = 0
        self.gate = threading.Event()
        self.gate.set()
        self._lock = threading.Lock()
        self._real = bcrypt.checkpw

    def __call__(self, password: bytes, hashed: bytes) -> bool:
        with self._lock:
            self.costs.append(hash_rounds(hashed))
            self.running += 1
            self.most_at_once = max(self.most_at_once, self.running)
        try:
            self.gate.wait(120)
            return self._real(password, hashed)
        finally:
            with self._lock:
                self.running -= 1


@pytest.fixture
def counting(monkeypatch) -> CountingBcrypt:
    counter = CountingBcrypt()
    monkeypatch.setattr(bcrypt, "checkpw", counter)
    yield counter
    counter.gate.set()


def test_every_check_costs_one_bcrypt_of_the_users_cost(counting):
    book = PasswordBook({"alice": hash_password("wonderland", rounds=5)})
    book = book.with_plain_user("bob", "builder")  # the old --auth user:password
    attempts = [
        ("alice", "wonderland", True),
        ("alice", "wrong", False),
        ("nobody", "wonderland", False),  # an unknown name must cost what a known one does
        ("alice", "x" * 100, False),  # beyond bcrypt's 72 bytes
        ("bob", "builder", True),  # a plain password costs the same bcrypt too
        ("bob", "wrong", False),
    ]
    for name, password, accepted in attempts:
        assert book.check(name, password) is accepted
    assert counting.costs == [5] * len(attempts)


@pytest.fixture(scope="module")
def signed_app(tmp_path_factory) -> Iterator[ScriptedApp]:
    folder = tmp_path_factory.mktemp("hardening")
    users = folder / "users.txt"
    lines = [f"{name}:{hash_password(password, rounds=4)}\n" for name, password in (ALICE, CAROL)]
    users.write_text("".join(lines))
    # Behind one trusted proxy: the test plays it, writing each request's client address.
    app = ScriptedApp(folder / "uploads", executor="local", auth_mode="password",
                      users=str(users), trust_proxy=True, trusted_proxies=1)  # fmt: skip
    yield app.start()
    app.stop()


def login(base: str, name: str, password: str, address: str, **headers: str) -> httpx.Response:
    form = {"username": name, "password": password}
    headers = {"X-Forwarded-For": f"198.51.100.1, {address}", **headers}
    return httpx.post(base + "login", data=form, headers=headers, timeout=60)


def test_a_flood_from_one_address_costs_a_bounded_number_of_checks(signed_app, counting):
    # 40 guesses at once, each for another name: past the address's limit none runs bcrypt.
    def guess(number: int) -> int:
        return login(signed_app.url, f"user{number}", "guess", "203.0.113.7").status_code

    with ThreadPoolExecutor(max_workers=40) as pool:
        statuses = list(pool.map(guess, range(40)))
    assert statuses.count(400) == len(counting.costs) <= 10
    assert statuses.count(429) == 40 - statuses.count(400)
    refused = login(signed_app.url, "user0", "guess", "203.0.113.7")
    assert refused.status_code == 429 and "Too many sign-in attempts" in refused.json()["detail"]
    assert int(refused.headers["retry-after"]) > 0
    # The first X-Forwarded-For entry is the client's own writing: changing it changes nothing.
    forged = login(signed_app.url, "user0", "guess", "203.0.113.7", **{"X-Forwarded-For":
                   "10.9.9.9, 203.0.113.7"})  # fmt: skip
    assert forged.status_code == 429


def test_a_name_guessed_from_many_addresses_is_locked(signed_app, counting):
    for number in range(10):
        assert login(signed_app.url, CAROL[0], "wrong", f"192.0.2.{number}").status_code == 400
    checks = len(counting.costs)
    # Locked: even her right password is refused now, and no check runs for it.
    locked = login(signed_app.url, *CAROL, "192.0.2.200")
    assert locked.status_code == 429 and "this user name" in locked.json()["detail"]
    assert len(counting.costs) == checks


def test_checks_run_one_at_a_time_and_a_crowd_is_refused_at_once(signed_app, counting):
    # Many addresses, many names: each attempt is under its limits, so only the number of
    # checks at once and of attempts waiting bounds the work (and the threads held).
    counting.gate.clear()
    statuses: list[int] = []

    def guess(number: int) -> None:
        statuses.append(
            login(signed_app.url, f"crowd{number}", "x", f"10.1.0.{number}").status_code
        )

    with ThreadPoolExecutor(max_workers=30) as pool:
        for number in range(30):
            pool.submit(guess, number)
        # While one check is held, 8 attempts wait and the other 21 are refused, unchecked.
        wait_for(lambda: statuses.count(429) == 21, "the crowd past the waiting room refused",
                 timeout=120)  # fmt: skip
        wait_for(lambda: counting.running == 1, "one check running", timeout=60)
        counting.gate.set()
    assert statuses.count(400) == 9 and len(counting.costs) == 9
    assert counting.most_at_once == 1


def test_the_sign_in_cookie_is_same_site_lax(signed_app):
    response = login(signed_app.url, *ALICE, "192.0.2.50")
    assert response.status_code == 200
    cookies = response.headers.get_list("set-cookie")
    assert cookies and all("samesite=lax" in cookie.lower() for cookie in cookies)
    assert not any("samesite=none" in cookie.lower() for cookie in cookies)


def test_a_foreign_site_cannot_read_the_app_with_the_visitor_s_cookie(signed_app):
    signed_in = login(signed_app.url, *ALICE, "192.0.2.51")
    # On a public host name (not localhost) gradio's CORS would answer any origin.
    headers = {"Host": "chat.example.org", "Origin": "https://evil.example"}
    with httpx.Client(cookies=signed_in.cookies, timeout=30) as client:
        read = client.get(signed_app.url + "config", headers=headers)
        preflight = client.options(signed_app.url + "gradio_api/queue/join", headers={
            **headers, "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type"})  # fmt: skip
    assert read.status_code == 200  # signed in: the app answers the page's own requests
    assert "access-control-allow-origin" not in read.headers
    assert preflight.headers.get("access-control-allow-origin") is None
    assert preflight.headers.get("access-control-allow-credentials") is None
