"""The size cap on the API's requests, over real HTTP against the running app: a body over
the cap (declared or chunked) gets 413 and an OpenAI-style error before the route parses it;
a normal request still runs."""

from __future__ import annotations

import json

import httpx
import openai
import pytest

from smolui.api.body_limit import MB, api_body_limit, too_large_message
from tests.smolui.api_app import make_key, served_app

MAX_FILES, MAX_FILE_MB = 2, 0.5
LIMIT = api_body_limit(MAX_FILES, int(MAX_FILE_MB * MB))


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    folder = tmp_path_factory.mktemp("body-limit")
    with served_app(folder, max_files=MAX_FILES, max_file_size_mb=MAX_FILE_MB) as (ui, base):
        yield ui, base, folder


def over_limit_body() -> bytes:
    text = "x" * (LIMIT + 1024)
    return json.dumps({"model": "smolui", "messages": [{"role": "user", "content": text}]}).encode()


def test_the_cap_follows_the_upload_settings():
    assert LIMIT == 2 * (MB * 2 // 3 + 1) + 2 * MB  # 0.5 MB base64-encoded, twice, plus room
    assert api_body_limit(10, 25 * MB) < 340 * MB


def test_a_declared_body_over_the_cap_is_refused_with_413(app):
    ui, base, folder = app
    key = make_key(folder, "dora")
    answer = httpx.post(base + "v1/chat/completions", content=over_limit_body(), timeout=60,
                        headers={"Authorization": f"Bearer {key}",
                                 "Content-Type": "application/json"})  # fmt: skip
    assert answer.status_code == 413
    error = answer.json()["error"]
    assert error["message"] == too_large_message(LIMIT)
    assert error["type"] == "invalid_request_error"


def test_a_chunked_body_is_counted_and_refused_with_413(app):
    ui, base, folder = app
    body = over_limit_body()

    def chunks():
        for start in range(0, len(body), 64 * 1024):
            yield body[start : start + 64 * 1024]

    # No key: the cap answers before the route, which would say 401, reads anything.
    answer = httpx.post(base + "v1/chat/completions", content=chunks(), timeout=60,
                        headers={"Content-Type": "application/json"})  # fmt: skip
    assert "content-length" not in answer.request.headers  # sent chunked
    assert answer.status_code == 413
    assert answer.json()["error"]["message"] == too_large_message(LIMIT)


def test_the_openai_client_reads_the_refusal(app):
    ui, base, folder = app
    api = openai.OpenAI(base_url=base + "v1", api_key=make_key(folder, "erin"), max_retries=0,
                        timeout=60)  # fmt: skip
    with pytest.raises(openai.APIStatusError) as refused:
        api.chat.completions.create(
            model="smolui", messages=[{"role": "user", "content": "x" * (LIMIT + 10)}]
        )
    assert refused.value.status_code == 413
    assert "Request too large" in refused.value.message


def test_a_normal_request_still_runs(app):
    ui, base, folder = app
    api = openai.OpenAI(base_url=base + "v1", api_key=make_key(folder, "finn"), max_retries=0,
                        timeout=120)  # fmt: skip
    reply = api.chat.completions.create(
        model="smolui", messages=[{"role": "user", "content": "What is six times seven?"}]
    )
    assert reply.choices[0].message.content == "42"
