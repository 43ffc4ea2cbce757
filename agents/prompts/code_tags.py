"""The markers around a code agent's code blocks (`code_block_tags`)."""

from __future__ import annotations

from agents.errors import AgentConfigError

DEFAULT_CODE_BLOCK_TAGS = ("<code>", "</code>")
MARKDOWN_CODE_BLOCK_TAGS = ("```python", "```")


def resolve_code_block_tags(tags: str | tuple[str, str] | list[str] | None) -> tuple[str, str]:
    """The (opening, closing) tags for `code_block_tags` as smolagents accepts it.

    Args:
        tags: None for `<code>`...`</code>`, "markdown" for ```python fences, or a pair.

    Raises:
        AgentConfigError: Anything else.
    """
    if tags is None:
        return DEFAULT_CODE_BLOCK_TAGS
    if tags == "markdown":
        return MARKDOWN_CODE_BLOCK_TAGS
    if (
        isinstance(tags, (tuple, list))
        and len(tags) == 2
        and all(isinstance(t, str) and t for t in tags)
    ):
        return (tags[0], tags[1])
    raise AgentConfigError(
        f'code_block_tags must be None, "markdown" or a pair of non-empty strings, got {tags!r}.'
    )


def code_stop_sequences(tags: tuple[str, str]) -> list[str]:
    """Where generation stops: after the code block, and before a made-up observation.

    A closing tag that is part of the opening one (```) would stop generation at the
    opening tag, so it is left out and the parser takes the block up to the closing fence.
    """
    stops = ["Observation:", "Calling tools:"]
    if tags[1] not in tags[0]:
        stops.insert(0, tags[1])
    return stops
