"""The OpenAI-compatible `/v1`, driven by the official `openai` client against the running app
on loopback: keys, streaming and whole answers, continued conversations, the per-user limits."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import httpx
import openai
import pytest

from smolui.api.access import LOCAL_OWNER, ApiAccess, Caller, Refused
from smolui.auth import AuthConfig, Identity, SignIn
from smolui.turns.pending import PendingTurn
from tests.smolui.api_app import ROOT, TURNS_PER_HOUR, served_app
from tests.smolui.api_app import make_key as make_api_key


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    folder = tmp_path_factory.mktemp("openai-api")
    with served_app(folder) as (ui, base):
        yield ui, f"{base}", folder


def make_key(folder: Path, user: str) -> str:
    """A key made by `python -m smolui.api.keys` (the README's command; its last line is the key)."""
    return make_api_key(folder, user, "smolui.api.keys")


def client(base: str, key: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=base + "v1", api_key=key, max_retries=0, timeout=120)


def test_a_whole_answer_with_its_steps_as_reasoning(app):
    ui, base, folder = app
    api = client(base, make_key(folder, "alice"))
    assert [model.id for model in api.models.list()] == ["smolui"]
    reply = api.chat.completions.create(
        model="smolui", messages=[{"role": "user", "content": "What is 6 times 7?"}]
    )
    message = reply.choices[0].message
    assert message.content == "42"
    reasoning = message.model_extra["reasoning_content"]
    assert "Step 1" in reasoning and "final_answer(x)" in reasoning and "42" in reasoning
    conversation = reply.model_extra["conversation_id"]
    stored = ui.keeper.find("api:alice", conversation)  # kept like the page's, as alice's
    chat = ui.keeper.chat(stored)
    assert chat[0] == {"role": "user", "content": "What is 6 times 7?"}
    assert chat[-2]["content"] == "42"


def test_streaming_gives_the_steps_first_then_the_answer(app):
    _, base, folder = app
    api = client(base, make_key(folder, "bob"))
    stream = api.chat.completions.create(
        model="smolui", messages=[{"role": "user", "content": "What is 6 times 7?"}], stream=True
    )
    kinds, reasoning, content = [], "", ""
    for chunk in stream:
        delta = chunk.choices[0].delta
        if (delta.model_extra or {}).get("reasoning_content"):
            kinds.append("reasoning")
            reasoning += delta.model_extra["reasoning_content"]
        if delta.content:
            kinds.append("content")
            content += delta.content
    assert content == "42"
    assert "Step 1" in reasoning and "final_answer(x)" in reasoning
    assert kinds[-1] == "content" and kinds.count("content") == 1 and "reasoning" in kinds


def test_a_conversation_continues_by_id_or_by_the_resent_chat(app):
    ui, base, folder = app
    api = client(base, make_key(folder, "carol"))
    first = api.chat.completions.create(
        model="smolui", messages=[{"role": "user", "content": "First question"}]
    )
    conversation = first.model_extra["conversation_id"]
    resent = [{"role": "user", "content": "First question"},
              {"role": "assistant", "content": first.choices[0].message.content},
              {"role": "user", "content": "Second question"}]  # fmt: skip
    second = api.chat.completions.create(model="smolui", messages=resent)
    assert second.model_extra["conversation_id"] == conversation
    third = api.chat.completions.create(
        model="smolui",
        messages=[{"role": "user", "content": "Third question"}],
        extra_body={"conversation_id": conversation},
    )
    assert third.model_extra["conversation_id"] == conversation
    chat = ui.keeper.chat(ui.keeper.find("api:carol", conversation))
    asked = [m["content"] for m in chat if m["role"] == "user"]
    assert asked == ["First question", "Second question", "Third question"]
    assert ui.registry.get(conversation).agent.memory.steps  # one agent remembers all three
    other = client(base, make_key(folder, "mallory"))
    with pytest.raises(openai.NotFoundError, match="No conversation of yours"):
        other.chat.completions.create(
            model="smolui",
            messages=[{"role": "user", "content": "Let me in"}],
            extra_body={"conversation_id": conversation},
        )


def test_over_the_limit_is_refused_with_the_page_s_message(app):
    ui, base, folder = app
    api = client(base, make_key(folder, "dave"))
    for _ in range(TURNS_PER_HOUR):
        api.chat.completions.create(model="smolui", messages=[{"role": "user", "content": "Hi"}])
    identity = Identity(provider="api", name="dave", client="127.0.0.1")
    page_says = ui.admission.enter(identity, "api:dave", PendingTurn.message("Hi"))
    assert isinstance(page_says, str) and page_says.startswith("Limit reached")
    with pytest.raises(openai.RateLimitError) as refused:
        api.chat.completions.create(model="smolui", messages=[{"role": "user", "content": "Hi"}])
    assert refused.value.body["message"] == page_says


def test_keys_are_required_once_one_exists_and_a_revoked_key_stops_working(app):
    _, base, folder = app
    key = make_key(folder, "erin")
    bare = httpx.post(base + "v1/chat/completions", timeout=30,
                      json={"messages": [{"role": "user", "content": "Hi"}]})  # fmt: skip
    assert bare.status_code == 401 and "API key is needed" in bare.json()["error"]["message"]
    with pytest.raises(openai.AuthenticationError):
        client(base, "smolui-not-a-key").models.list()
    subprocess.run([sys.executable, "-m", "smolui.api.keys", "--data-dir", str(folder),
                    "revoke", key[:14]], cwd=ROOT, check=True, timeout=120)  # fmt: skip
    with pytest.raises(openai.AuthenticationError, match="not valid"):
        client(base, key).models.list()


class _Keys:
    def __init__(self, users: dict[str, str]):
        self.users = users

    def user_for(self, key: str) -> str | None:
        return self.users.get(key)

    def any_active(self) -> bool:
        return bool(self.users)


def _request(host: str) -> SimpleNamespace:
    return SimpleNamespace(client=SimpleNamespace(host=host), headers={})


def test_without_keys_and_sign_in_only_this_machine_may_call():
    access = ApiAccess(SignIn(AuthConfig()), _Keys({}))
    local = access.caller("Bearer anything", _request("127.0.0.1"))
    assert isinstance(local, Caller) and local.owner == LOCAL_OWNER
    assert not local.identity.signed_in
    remote = access.caller(None, _request("203.0.113.9"))
    assert isinstance(remote, Refused) and remote.status == 403


def test_with_sign_in_a_key_user_owns_what_they_own_in_the_page():
    config = AuthConfig(mode="password", users="alice:$2b$12$" + "a" * 53)
    access = ApiAccess(SignIn(config), _Keys({"k": "alice"}))
    caller = access.caller("Bearer k", _request("203.0.113.9"))
    assert isinstance(caller, Caller) and caller.owner == "password:alice"
    refused = access.caller(None, _request("127.0.0.1"))  # sign-in on: loopback needs a key too
    assert isinstance(refused, Refused) and refused.status == 401
