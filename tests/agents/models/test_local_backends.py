"""LlamaCppModel and TransformersModel(gguf_file=) on the bundled SmolLM2 file."""

from __future__ import annotations

import threading

import pytest
from backend_checks import assert_agent_step_ran, run_one_code_agent_step

from agents.errors import ContextLengthExceededError
from agents.models.llama_cpp import LlamaCppModel
from agents.models.messages import agglomerate_stream_deltas
from agents.models.transformers_model import TransformersModel

COUNT = [{"role": "user", "content": "Count from 1 to 10, one number per line."}]


@pytest.fixture(scope="module")
def llama_model(gguf_path):
    return LlamaCppModel(gguf_path, n_ctx=2048, n_threads=2, max_tokens=64, temperature=0)


@pytest.fixture(scope="module")
def transformers_model(gguf_path):
    model = TransformersModel(gguf_file=str(gguf_path), max_new_tokens=32)
    model.load()
    return model


@pytest.fixture(params=["llama", "transformers"])
def local_model(request):
    return request.getfixturevalue(f"{request.param}_model")


@pytest.mark.slow
def test_models_load_lazily_and_report_their_context(gguf_path):
    llama = LlamaCppModel(gguf_path, n_ctx=1024, n_threads=2)
    assert llama._client is None  # nothing loaded at construction
    assert llama.count_tokens("one two three") == len(
        llama.client.tokenize(b"one two three", add_bos=False)
    )
    assert llama.context_size == 1024
    hf = TransformersModel(gguf_file=str(gguf_path))
    assert hf._loaded is None and hf.model_id == str(gguf_path.parent)


@pytest.mark.slow
def test_generation_streaming_and_usage(local_model):
    message = local_model.generate(COUNT, max_tokens=16)
    assert "1" in message.content and "2" in message.content
    assert message.token_usage.input_tokens > 10
    assert 0 < message.token_usage.output_tokens <= 16

    deltas = list(local_model.generate_stream(COUNT, max_tokens=16))
    assert sum(1 for d in deltas if d.content) > 3  # streamed piece by piece
    streamed = agglomerate_stream_deltas(deltas)
    assert streamed.content == message.content  # greedy: the same answer
    assert streamed.token_usage.input_tokens == message.token_usage.input_tokens
    assert abs(streamed.token_usage.output_tokens - message.token_usage.output_tokens) <= 1


@pytest.mark.slow
def test_stop_sequences_stop_generation_early(local_model):
    message = local_model.generate(COUNT, stop_sequences=["4"], max_tokens=48)
    assert "3" in message.content and "4" not in message.content
    # Generation itself stopped: counting on to 10 would take about 40 tokens.
    assert message.token_usage.output_tokens <= 20
    streamed = "".join(
        d.content or "" for d in local_model.generate_stream(COUNT, stop_sequences=["4"])
    )
    assert "3" in streamed and "4" not in streamed


@pytest.mark.slow
def test_llama_cpp_serves_two_threads_one_at_a_time(llama_model):
    expected = llama_model.generate(COUNT, max_tokens=12).content
    answers: list[str] = []

    def ask() -> None:
        answers.append(
            "".join(d.content or "" for d in llama_model.generate_stream(COUNT, max_tokens=12))
        )

    threads = [threading.Thread(target=ask) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert answers == [expected, expected]


@pytest.mark.slow
def test_closing_a_transformers_stream_stops_its_generation(transformers_model):
    stream = transformers_model.generate_stream(COUNT, max_tokens=200)
    next(stream)
    next(stream)
    stream.close()
    alive = [t for t in threading.enumerate() if t.name == "transformers-generate"]
    assert not alive


@pytest.mark.slow
def test_a_code_agent_step_end_to_end(local_model):
    agent, result = run_one_code_agent_step(local_model)
    assert_agent_step_ran(agent, result)


@pytest.mark.slow
def test_a_prompt_longer_than_the_context_is_a_typed_error(gguf_path):
    model = LlamaCppModel(gguf_path, n_ctx=512, n_threads=2)
    long_prompt = [{"role": "user", "content": "count the words " * 200}]
    with pytest.raises(ContextLengthExceededError, match="context"):
        model.generate(long_prompt, max_tokens=4)
