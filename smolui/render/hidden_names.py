"""Hiding the names of a person's attachments in a shared conversation, however they were
written.

The agent rarely repeats a name as it was sent: it may change its case, drop the extension,
write it inside a path (`/uploads/3f2a/memo_q3.pdf`), URL-encode it (`Memo%20Q3.pdf`), or
print it from code. Each name becomes one pattern that allows those spellings, and matches
only whole names (never the inside of a longer word), so that hiding "a.txt" leaves the word
"a" alone. A name without its extension is hidden only when it could not be an ordinary word
("Q3_salaries" is; "report" or "a" is not: the word would vanish from every sentence).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any
from urllib.parse import quote, quote_plus

from smolui.uploads.names import display_name

HIDDEN_NAME = "(attachment)"  # stands for a name not shared, wherever it was written
# What may stand between two words of a name: the way it was typed, or as the upload
# folder, a shell or a URL rewrote it ("memo q3", "memo_q3", "memo-q3", "memo\ q3", "memo%20q3").
_MARKS = r"[_+\-]|\\ |%20|%5[Ff]|%2[Dd]|%2[Bb]"
_BETWEEN = f"(?: |{_MARKS}){{1,3}}"
# A stem standing alone keeps its words apart by a mark unless it was typed with spaces:
# "my_notes" hides "my-notes", not the phrase "my notes".
_BETWEEN_MARKED = f"(?:{_MARKS}){{1,3}}"
_DOT = r"(?:\.|%2[Ee])"
# The suffix the upload folder adds to a name already taken ("memo-2.pdf").
_TAKEN_SUFFIX = r"(?:-\d{1,3})?"
# A name is whole when no letter or digit touches it on either side.
_BEFORE, _AFTER = r"(?<![^\W_])", r"(?![^\W_])"
_WORD = re.compile(r"[^\W_]+")  # letters and digits, of any script
_SHORTEST_BARE_STEM = 4  # fewer characters read as a word or an abbreviation, not a name


def upload_names(chat: list[dict[str, Any]]) -> list[str]:
    """The names of the person's attachments in a chat: as sent, as the chat shows them and
    as they were stored.

    Args:
        chat: A stored chat.
    """
    names: set[str] = set()
    for message in chat:
        if not isinstance(message, dict) or message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, dict) and isinstance(content.get("path"), str):
            stored = content["path"].replace("\\", "/").rsplit("/", 1)[-1]
            sent = str(content.get("orig_name") or stored)
            names.update({sent, display_name(sent), stored})
    return sorted((name for name in names if name.strip()), key=len, reverse=True)


def hider(names: Sequence[str]) -> Callable[[str], str]:
    """A function that writes `HIDDEN_NAME` in place of each of `names` in a text, in any of
    the spellings the module's docstring lists.

    Args:
        names: The names to hide.
    """
    alternatives = sorted(set(_spellings(names)), key=len, reverse=True)
    if not alternatives:
        return lambda text: text
    pattern = re.compile(f"{_BEFORE}(?:{'|'.join(alternatives)}){_AFTER}", re.IGNORECASE)
    return lambda text: pattern.sub(HIDDEN_NAME, text)


def _spellings(names: Iterable[str]) -> Iterable[str]:
    """Regular expressions for each name: as written, loosely spaced, URL-encoded, and its
    stem alone where that is distinctive."""
    for name in names:
        name = name.strip()
        if not name:
            continue
        yield re.escape(name)
        for encoded in (quote(name), quote_plus(name)):
            if encoded != name:
                yield re.escape(encoded)
        stem, dot, extension = name.rpartition(".")
        if not dot or not stem or not _WORD.fullmatch(extension):
            stem, extension = name, ""
        loose = _loose(stem)
        if loose is None:
            continue
        if extension:
            yield f"{loose}{_TAKEN_SUFFIX}{_DOT}{re.escape(extension)}"
        if _distinctive(stem):
            spaced = any(char.isspace() for char in stem)
            yield f"{_loose(stem, _BETWEEN if spaced else _BETWEEN_MARKED)}{_TAKEN_SUFFIX}"


def _loose(stem: str, between: str = _BETWEEN) -> str | None:
    """The stem's words with any of the separators `between` allows between them (None when
    it holds no letter or digit)."""
    words = _WORD.findall(stem)
    if not words:
        return None
    return between.join(re.escape(word) for word in words)


def _distinctive(stem: str) -> bool:
    """Whether a name's stem, standing alone in a text, can only be that name: long enough,
    and more than one plain word: words joined by a mark ("budget-final", "q3_salaries"),
    three words or more, a digit beside letters, or a capital inside a word. Two words with a
    space between ("my notes") are a phrase, and a number alone ("2024") is a number."""
    words = _WORD.findall(stem)
    if sum(len(word) for word in words) < _SHORTEST_BARE_STEM:
        return False
    if all(word.isdigit() for word in words):  # "2024" is a year in any sentence
        return False
    joined = len(words) > 1 and re.search(r"[^\w\s]|_", stem) is not None
    several = joined or len(words) > 2
    digits = any(char.isdigit() for char in stem)
    inner_capital = any(char.isupper() for word in words for char in word[1:])
    return several or digits or inner_capital
