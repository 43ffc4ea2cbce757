"""Fairness between visitors: addresses that cannot be forged, anonymous visitors held per
address whatever browser keys they present, sign-in required where asked, honest gauges."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from starlette.datastructures import Headers

from smolui.app.settings import settings_from_args
from smolui.auth import AuthConfig, Identity, SignIn
from smolui.auth.identity import client_address
from smolui.auth.proxy_peers import Proxies, ProxyPeers
from smolui.observability.metrics import AppMetrics
from smolui.turns.admission import Admission, TurnAdmission, build_admission
from smolui.turns.limits import Limits, UsageLimiter
from smolui.turns.pending import PendingTurn
from smolui.turns.queue import TurnQueue
from smolui.turns.usage_ledger import MemoryLedger

HF_SPACE = {"HF_TOKEN": "hf_x"}


def request(forwarded: str | list[str], peer: str = "10.0.0.1") -> SimpleNamespace:
    """A request as gradio hands it over: Starlette headers and the connection's address."""
    values = [forwarded] if isinstance(forwarded, str) else forwarded
    raw = [(b"x-forwarded-for", value.encode()) for value in values]
    return SimpleNamespace(headers=Headers(raw=raw), client=SimpleNamespace(host=peer))


def proxies(hops: int) -> Proxies:
    """`hops` proxies in front, the nearest connecting from 10.0.0.1 (as `request`'s peer)."""
    return Proxies(hops=hops, peers=ProxyPeers(["10.0.0.1"]))


def test_the_client_is_read_from_the_right_of_x_forwarded_for():
    # The client writes anything it likes first; each trusted proxy appends what it saw.
    sent = request("6.6.6.6, 203.0.113.9")
    assert client_address(sent, proxies(1)) == "203.0.113.9"
    chained = request(["6.6.6.6", "203.0.113.9, 10.0.0.2"])
    assert client_address(chained, proxies(2)) == "203.0.113.9"
    assert client_address(sent, proxies(0)) == "10.0.0.1"  # not behind a proxy: the connection
    assert client_address(request("203.0.113.9"), proxies(2)) == "10.0.0.1"  # too short


def test_trusted_proxies_come_from_the_settings():
    settings = settings_from_args([], {"SMOLUI_TRUST_PROXY": "1", "SMOLUI_TRUSTED_PROXIES": "2",
                                       "SMOLUI_PROXY_PEERS": "10.0.0.0/24"})  # fmt: skip
    identity = build_admission(settings).sign_in.identify(request("6.6.6.6, 203.0.113.9, 10.0.0.2"))
    assert identity.client == "203.0.113.9"
    # The default proxy peer is this machine: 10.0.0.1 is not one, its header is ignored.
    by_default = settings_from_args([], {"SMOLUI_TRUST_PROXY": "1"})
    assert build_admission(by_default).sign_in.identify(request("6.6.6.6")).client == "10.0.0.1"
    untrusted = build_admission(settings_from_args([], {})).sign_in.identify(request("6.6.6.6"))
    assert untrusted.client == "10.0.0.1"


def gate(sign_in: SignIn | None = None, **limits: int) -> TurnAdmission:
    limiter = UsageLimiter(Limits(**limits), MemoryLedger())
    return TurnAdmission(sign_in, limiter, TurnQueue(slots=4, max_waiting=4, user_slots=1))


def test_new_browser_keys_do_not_buy_an_address_more_running_turns():
    admission = gate()
    visitor = Identity(client="203.0.113.9")
    first = admission.enter(visitor, "a" * 43, PendingTurn.message("one"), "c1")
    assert isinstance(first, Admission)
    rotated = admission.enter(visitor, "b" * 43, PendingTurn.message("two"), "c2")
    assert isinstance(rotated, str) and "1 at a time" in rotated
    # Another address is another visitor; and the slot comes back once the turn ends.
    other = Identity(client="198.51.100.4")
    assert isinstance(admission.enter(other, "c" * 43, PendingTurn.message("x")), Admission)
    first.release()
    assert isinstance(admission.enter(visitor, "d" * 43, PendingTurn.message("three")), Admission)


def test_new_browser_keys_do_not_buy_an_address_more_turns():
    admission = gate(turns_per_day=2)
    visitor = Identity(client="203.0.113.9")
    for key in ("a", "b"):
        turn = admission.enter(visitor, key * 43, PendingTurn.message("hi"))
        turn.turn_started()
        turn.turn_finished("done", 1.0, None)
    refusal = admission.enter(visitor, "c" * 43, PendingTurn.message("hi"))
    assert isinstance(refusal, str) and "Each network address is allowed 2 turns" in refusal


def test_sign_in_can_be_required_or_not_for_model_calls():
    anonymous = Identity(client="203.0.113.9")
    required = SignIn(AuthConfig(mode="hf"), environ=HF_SPACE)
    assert "Sign in" in gate(required).enter(anonymous, "a" * 43, PendingTurn.message("hi"))
    optional = SignIn(AuthConfig(mode="hf", require=False), environ=HF_SPACE)
    assert isinstance(
        gate(optional).enter(anonymous, "a" * 43, PendingTurn.message("hi")), Admission
    )
    settings = settings_from_args([], {"SMOLUI_AUTH": "hf", "SMOLUI_REQUIRE_SIGN_IN": "0"})
    assert settings.require_sign_in is False
    with pytest.raises(SystemExit):  # nothing to sign in with: a setup error, not a silent no
        settings_from_args([], {"SMOLUI_REQUIRE_SIGN_IN": "1"})


def test_the_running_turns_gauge_counts_running_turns_only():
    queue = TurnQueue(slots=1, max_waiting=4, user_slots=0)
    busy = [SimpleNamespace(busy=True, built_agent=None) for _ in range(3)]
    metrics = AppMetrics(SimpleNamespace(sessions=lambda: busy), queue=queue)
    running, *waiting = [queue.join(f"user{number}") for number in range(3)]
    value = metrics.registry.get_sample_value
    assert value("smolui_running_turns") == 1
    assert value("smolui_queue_length") == 2
    running.release()
    assert value("smolui_running_turns") == 1 and value("smolui_queue_length") == 1
    for slot in waiting:
        slot.release()
    assert value("smolui_running_turns") == 0
