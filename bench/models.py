"""Tokens per second of our local backends next to the raw libraries, same prompt, same run.

    python bench/models.py [--tokens 64] [--rounds 3] [--threads N] [--only llama|transformers]

Each backend and its raw library share one loaded model, so the figures isolate what the
wrapper adds (message preparation, templating, parsing, usage). Every call is forced to
write exactly `--tokens` tokens (end-of-turn banned), and raw and wrapped calls alternate
so that load from other processes hits both alike; the median of the rounds is reported.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from agents.models.bundled import bundled_gguf_path  # noqa: E402

MESSAGES = [
    {"role": "system", "content": "You are a helpful assistant."},
    {"role": "user", "content": "Write a short story about a robot who learns to paint."},
]


def rate(call: Callable[[], int]) -> float:
    """Run `call` (which returns the tokens it wrote); tokens per second."""
    start = time.perf_counter()
    tokens = call()
    return tokens / (time.perf_counter() - start)


def compare(raw: Callable[[], int], ours: Callable[[], int], rounds: int) -> tuple[float, float]:
    raw(), ours()  # warm caches and lazy loading
    raw_rates, our_rates = [], []
    for index in range(rounds):
        pair = [(raw, raw_rates), (ours, our_rates)]
        for call, rates in pair if index % 2 == 0 else reversed(pair):
            rates.append(rate(call))
    return statistics.median(raw_rates), statistics.median(our_rates)


def bench_llama(tokens: int, rounds: int, threads: int) -> list[tuple[str, float, float]]:
    from agents.models.llama_cpp import LlamaCppModel

    model = LlamaCppModel(n_ctx=2048, n_threads=threads, temperature=0)
    llm = model.client
    options = {"max_tokens": tokens, "logit_bias": {llm.token_eos(): -100.0}}
    prepared = [{"role": m["role"], "content": m["content"]} for m in MESSAGES]

    def raw() -> int:
        answer = llm.create_chat_completion(prepared, temperature=0, **options)
        return answer["usage"]["completion_tokens"]

    def ours() -> int:
        return model.generate(MESSAGES, **options).token_usage.output_tokens

    def raw_stream() -> int:
        chunks = llm.create_chat_completion(prepared, temperature=0, stream=True, **options)
        return sum(1 for c in chunks if c["choices"][0]["delta"].get("content"))

    def our_stream() -> int:
        deltas = list(model.generate_stream(MESSAGES, **options))
        return deltas[-1].token_usage.output_tokens

    return [
        ("LlamaCppModel.generate", *compare(raw, ours, rounds)),
        ("LlamaCppModel.generate_stream", *compare(raw_stream, our_stream, rounds)),
    ]


def bench_transformers(tokens: int, rounds: int, threads: int) -> list[tuple[str, float, float]]:
    import torch
    from transformers import TextIteratorStreamer

    from agents.models.transformers_model import TransformersModel

    torch.set_num_threads(threads)
    model = TransformersModel(gguf_file=str(bundled_gguf_path()))
    loaded = model.load()
    options = {"max_new_tokens": tokens, "min_new_tokens": tokens, "do_sample": False}
    inputs = loaded.tokenizer.apply_chat_template(
        MESSAGES, add_generation_prompt=True, return_tensors="pt", return_dict=True
    )
    prompt_length = inputs["input_ids"].shape[1]

    def raw() -> int:
        with torch.inference_mode():
            output = loaded.model.generate(**inputs, **options)
        return output.shape[1] - prompt_length

    def ours() -> int:
        return model.generate(MESSAGES, **options).token_usage.output_tokens

    def raw_stream() -> int:
        import threading

        streamer = TextIteratorStreamer(loaded.tokenizer, skip_prompt=True)
        worker = threading.Thread(
            target=loaded.model.generate, kwargs={**inputs, **options, "streamer": streamer}
        )
        worker.start()
        for _ in streamer:
            pass
        worker.join()
        return tokens

    def our_stream() -> int:
        deltas = list(model.generate_stream(MESSAGES, **options))
        return deltas[-1].token_usage.output_tokens

    return [
        ("TransformersModel.generate", *compare(raw, ours, rounds)),
        ("TransformersModel.generate_stream", *compare(raw_stream, our_stream, rounds)),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=64, help="tokens written per call")
    parser.add_argument("--rounds", type=int, default=3, help="timed calls per variant")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--only", choices=["llama", "transformers"])
    args = parser.parse_args()
    rows = []
    if args.only in (None, "llama"):
        rows += bench_llama(args.tokens, args.rounds, args.threads)
    if args.only in (None, "transformers"):
        rows += bench_transformers(args.tokens, args.rounds, args.threads)
    print(
        f"\nSmolLM2-135M-Instruct Q4_1, {args.tokens} tokens/call, {args.threads} threads, "
        f"median of {args.rounds}"
    )
    print(f"{'wrapper':36} {'raw tok/s':>10} {'ours tok/s':>11} {'ours/raw':>9}")
    for name, raw, ours in rows:
        verdict = "ok" if ours >= 0.9 * raw else "SLOWER than 90% of raw"
        print(f"{name:36} {raw:10.1f} {ours:11.1f} {ours / raw:9.2f}  {verdict}")


if __name__ == "__main__":
    main()
