"""`visit_webpage`: fetch a URL and return its content as Markdown, truncated sensibly."""

from __future__ import annotations

import ipaddress
import re
import socket
import time
from urllib.parse import urljoin, urlsplit

from tools.base import Tool, ToolExecutionError

_HTML_TYPES = ("text/html", "application/xhtml+xml")
_TEXT_TYPES = ("text/", "application/json", "application/xml", "application/rss+xml")
_DROP_BLOCKS = re.compile(
    r"<(script|style|noscript|template|svg)\b[^>]*>.*?</\1\s*>", re.IGNORECASE | re.DOTALL
)
_USER_AGENT = "Mozilla/5.0 (compatible; smolui-agent/0.1; +https://huggingface.co/docs/smolagents)"


class VisitWebpageTool(Tool):
    """Fetches a web page and returns it as Markdown.

    Args:
        max_output_length: Characters of Markdown returned at most (the rest is cut).
        max_bytes: Refuse pages larger than this many bytes.
        timeout: Seconds for the whole download.
        max_redirects: Redirects followed at most.
        allow_private_addresses: Allow loopback and private-network hosts; link-local hosts
            (cloud metadata services) are always refused.
    """

    name = "visit_webpage"
    description = (
        "Visits a web page at the given URL and returns its content as Markdown. "
        "Long pages are cut; use start to read further."
    )
    inputs = {
        "url": {"type": "string", "description": "The http(s) URL of the page to visit."},
        "start": {
            "type": "integer",
            "description": "Character offset to start from, to read past a cut (default 0).",
            "nullable": True,
        },
    }
    output_type = "string"

    def __init__(
        self,
        max_output_length: int = 40_000,
        max_bytes: int = 5_000_000,
        timeout: float = 20.0,
        max_redirects: int = 5,
        allow_private_addresses: bool = True,
    ):
        super().__init__()
        self.max_output_length = max_output_length
        self.max_bytes = max_bytes
        self.timeout = timeout
        self.max_redirects = max_redirects
        self.allow_private_addresses = allow_private_addresses

    def forward(self, url: str, start: int | None = None) -> str:
        body, content_type, encoding, final_url = self.fetch(url.strip())
        text = _decode(body, encoding)
        if content_type in _HTML_TYPES or (not content_type and "<html" in text[:2000].lower()):
            text = html_to_markdown(text)
        return truncate(text, self.max_output_length, start or 0, final_url)

    def fetch(self, url: str) -> tuple[bytes, str, str | None, str]:
        """Download a page; returns (body, content type, declared encoding, final URL)."""
        import requests

        deadline = time.monotonic() + self.timeout
        session = requests.Session()
        try:
            for _ in range(self.max_redirects + 1):
                self._check_url(url)
                response = _get(session, url, deadline, self.timeout)
                if response.is_redirect and response.headers.get("location"):
                    url = urljoin(url, response.headers["location"])
                    response.close()
                    continue
                with response:
                    return self._read(response, url, deadline)
            raise ToolExecutionError(f"{url} redirected more than {self.max_redirects} times.")
        finally:
            session.close()

    def _check_url(self, url: str) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ToolExecutionError(
                f"{url!r} is not a web address; give a full URL such as https://example.com/page."
            )
        for address in _addresses(parts.hostname, parts.port):
            if address.is_link_local or address.is_multicast or address.is_unspecified:
                raise ToolExecutionError(f"Visiting {parts.hostname} is not allowed.")
            if not self.allow_private_addresses and (address.is_private or address.is_loopback):
                raise ToolExecutionError(
                    f"Visiting {parts.hostname} (a private address) is not allowed."
                )

    def _read(self, response, url: str, deadline: float) -> tuple[bytes, str, str | None, str]:
        if response.status_code >= 400:
            reason = response.reason or "error"
            raise ToolExecutionError(
                f"{url} answered HTTP {response.status_code} {reason}. Check the address, or "
                "search for the page instead."
            )
        content_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
        if (
            content_type
            and not content_type.startswith(_TEXT_TYPES)
            and content_type not in (_HTML_TYPES)
        ):
            raise ToolExecutionError(
                f"{url} is not a web page (content type {content_type}); this tool reads "
                "HTML and text only."
            )
        declared = int(response.headers.get("content-length") or 0)
        if declared > self.max_bytes:
            raise ToolExecutionError(_too_big(url, declared, self.max_bytes))
        body = bytearray()
        for chunk in response.iter_content(chunk_size=65_536):
            body.extend(chunk)
            if len(body) > self.max_bytes:
                raise ToolExecutionError(_too_big(url, None, self.max_bytes))
            if time.monotonic() > deadline:
                raise ToolExecutionError(_timed_out(url, self.timeout))
        encoding = (
            response.encoding if "charset" in response.headers.get("content-type", "") else None
        )
        return bytes(body), content_type, encoding, url


def _get(session, url: str, deadline: float, timeout: float):
    import requests

    remaining = max(0.5, deadline - time.monotonic())
    try:
        return session.get(
            url,
            headers={"User-Agent": _USER_AGENT, "Accept": "text/html,text/plain;q=0.9,*/*;q=0.5"},
            timeout=(min(remaining, 10.0), remaining),
            allow_redirects=False,
            stream=True,
        )
    except requests.exceptions.Timeout as error:
        raise ToolExecutionError(_timed_out(url, timeout)) from error
    except requests.exceptions.RequestException as error:
        raise ToolExecutionError(
            f"Could not reach {url}: {type(error).__name__}. The site may be down, the address "
            "wrong, or this machine offline."
        ) from error


def _addresses(host: str, port: int | None) -> list[ipaddress.IPv4Address | ipaddress.IPv6Address]:
    try:
        return [ipaddress.ip_address(host)]
    except ValueError:
        pass  # a name, not an address: resolve it
    try:
        infos = socket.getaddrinfo(host, port or 80, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as error:
        raise ToolExecutionError(
            f"Could not find the host {host!r} ({error}). Check the address, or this machine "
            "may be offline."
        ) from error
    except OSError as error:  # e.g. a network guard refusing the lookup
        raise ToolExecutionError(f"Could not look up {host!r}: {error}") from error
    return [ipaddress.ip_address(info[4][0].split("%")[0]) for info in infos]


def _too_big(url: str, size: int | None, limit: int) -> str:
    what = f"{size / 1e6:.1f} MB" if size else f"more than {limit / 1e6:.1f} MB"
    return f"{url} is too large to read ({what}; the limit is {limit / 1e6:.1f} MB)."


def _timed_out(url: str, seconds: float | None) -> str:
    within = f" within {seconds:g} seconds" if seconds else ""
    return f"{url} did not answer{within} (timeout). Try again later or another source."


def _decode(body: bytes, encoding: str | None) -> str:
    if encoding:
        try:
            return body.decode(encoding, errors="replace")
        except LookupError:
            pass
    meta = re.search(rb"<meta[^>]+charset=[\"']?([\w-]+)", body[:4096], re.IGNORECASE)
    if meta:
        try:
            return body.decode(meta.group(1).decode("ascii"), errors="replace")
        except LookupError:
            pass
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        from charset_normalizer import from_bytes

        best = from_bytes(body).best()
        return str(best) if best is not None else body.decode("utf-8", errors="replace")


def html_to_markdown(html: str) -> str:
    """Convert HTML to compact Markdown (scripts, styles and extra blank lines removed).

    Args:
        html: The page's HTML.
    """
    from markdownify import markdownify

    markdown = markdownify(_DROP_BLOCKS.sub("", html), heading_style="ATX")
    markdown = re.sub(r"[ \t]+\n", "\n", markdown)
    return re.sub(r"\n{3,}", "\n\n", markdown).strip()


def truncate(text: str, limit: int, start: int = 0, url: str = "") -> str:
    """Return `limit` characters from `start`, saying what was cut and how to read on.

    Args:
        text: The full text.
        limit: Characters to return at most.
        start: Offset of the first character returned.
        url: The page, for the hint.
    """
    if start >= len(text) and text:
        return f"The page has only {len(text)} characters; nothing after offset {start}."
    part = text[start : start + limit]
    end = start + len(part)
    notes = []
    if start:
        notes.append(f"[characters {start}-{end} of {len(text)}]")
    if end < len(text):
        notes.append(
            f"[... {len(text) - end} more characters cut; call visit_webpage(url={url!r}, "
            f"start={end}) to read on]"
        )
    return "\n\n".join([part, *notes]) if notes else part
