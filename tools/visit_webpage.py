"""`visit_webpage`: fetch a URL and return its content as Markdown, truncated sensibly.

The tool runs on the host for code a model wrote, so it is built like a public service:
only globally routable addresses by default (see `tools.web_guard`), checked on every
redirect and connected to as checked; the download and the conversion are bounded.
"""

from __future__ import annotations

import re
import time
from urllib.parse import urljoin, urlsplit

from tools.base import Tool, ToolExecutionError
from tools.html_markdown import bounded_markdown, html_to_markdown
from tools.web_guard import Target, checked_target, private_hosts_allowed

__all__ = ["VisitWebpageTool", "html_to_markdown", "truncate"]

_HTML_TYPES = ("text/html", "application/xhtml+xml")
_TEXT_TYPES = ("text/", "application/json", "application/xml", "application/rss+xml")
_REDIRECTS = (301, 302, 303, 307, 308)
_USER_AGENT = "Mozilla/5.0 (compatible; smolui-agent/0.1; +https://huggingface.co/docs/smolagents)"


class VisitWebpageTool(Tool):
    """Fetches a web page and returns it as Markdown.

    Args:
        max_output_length: Characters of Markdown returned at most (the rest is cut).
        max_bytes: Refuse pages larger than this many bytes.
        timeout: Seconds for the whole call: download and conversion.
        max_redirects: Redirects followed at most.
        allow_private: Allow loopback and private-network hosts (an operator's choice, e.g.
            an intranet); None: only when SMOLUI_VISIT_PRIVATE_HOSTS=1. Link-local hosts
            (cloud metadata services) are always refused.
        max_html_chars: HTML characters converted to Markdown at most.
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
        allow_private: bool | None = None,
        max_html_chars: int = 1_000_000,
    ):
        super().__init__()
        self.max_output_length = max_output_length
        self.max_bytes = max_bytes
        self.timeout = timeout
        self.max_redirects = max_redirects
        self.allow_private = private_hosts_allowed(allow_private)
        self.max_html_chars = max_html_chars

    def forward(self, url: str, start: int | None = None) -> str:
        deadline = time.monotonic() + self.timeout
        body, content_type, encoding, final_url = self.fetch(url.strip(), deadline)
        text = _decode(body, encoding)
        if content_type in _HTML_TYPES or (not content_type and "<html" in text[:2000].lower()):
            remaining = max(1.0, deadline - time.monotonic())
            text = bounded_markdown(text, self.max_html_chars, remaining)
        return truncate(text, self.max_output_length, start or 0, final_url)

    def fetch(self, url: str, deadline: float | None = None) -> tuple[bytes, str, str | None, str]:
        """Download a page; returns (body, content type, declared encoding, final URL).

        Args:
            url: The address.
            deadline: `time.monotonic()` by which the download must end (default: timeout).
        """
        deadline = deadline if deadline is not None else time.monotonic() + self.timeout
        for _ in range(self.max_redirects + 1):
            target = self._check_url(url)
            response = _get(url, target, deadline, self.timeout)
            try:
                location = response.headers.get("location")
                if response.status in _REDIRECTS and location:
                    url = urljoin(url, location)
                    continue
                return self._read(response, url, deadline)
            finally:
                response.close()  # and its connection: each hop connects afresh, as checked
        raise ToolExecutionError(f"{url} redirected more than {self.max_redirects} times.")

    def _check_url(self, url: str) -> Target:
        try:
            parts = urlsplit(url)
            port = parts.port
        except ValueError:  # a port that is not a number
            parts, port = None, None
        if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
            raise ToolExecutionError(
                f"{url!r} is not a web address; give a full URL such as https://example.com/page."
            )
        host = parts.hostname
        if ":" not in host:  # a name (not IPv6): spelt as DNS and the Host header want it
            try:
                host = host.encode("idna").decode("ascii")
            except UnicodeError as error:
                raise ToolExecutionError(f"{url!r} has a host name that is not valid.") from error
        default = 443 if parts.scheme == "https" else 80
        return checked_target(host, port or default, self.allow_private)

    def _read(self, response, url: str, deadline: float) -> tuple[bytes, str, str | None, str]:
        if response.status >= 400:
            reason = response.reason or "error"
            raise ToolExecutionError(
                f"{url} answered HTTP {response.status} {reason}. Check the address, or "
                "search for the page instead."
            )
        header = response.headers.get("content-type", "")
        content_type = header.split(";")[0].strip().lower()
        if (
            content_type
            and not content_type.startswith(_TEXT_TYPES)
            and content_type not in (_HTML_TYPES)
        ):
            raise ToolExecutionError(
                f"{url} is not a web page (content type {content_type}); this tool reads "
                "HTML and text only."
            )
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self.max_bytes:
            raise ToolExecutionError(_too_big(url, int(declared), self.max_bytes))
        body = bytearray()
        try:
            for chunk in response.stream(65_536):
                body.extend(chunk)
                if len(body) > self.max_bytes:
                    raise ToolExecutionError(_too_big(url, None, self.max_bytes))
                if time.monotonic() > deadline:
                    raise ToolExecutionError(_timed_out(url, self.timeout))
        except _network_errors() as error:
            raise _unreachable(url, error, self.timeout) from error
        charset = re.search(r"charset=[\"']?([\w.:-]+)", header, re.IGNORECASE)
        return bytes(body), content_type, charset.group(1) if charset else None, url


def _get(url: str, target: Target, deadline: float, timeout: float):
    """GET `url` from one of `target`'s checked addresses (never by name again), with the
    Host header and the TLS name of the URL."""
    import urllib3

    parts = urlsplit(url)
    https = parts.scheme == "https"
    port = parts.port or (443 if https else 80)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    host = f"[{target.host}]" if ":" in target.host else target.host
    headers = {
        "Host": host if parts.port is None else f"{host}:{parts.port}",
        "User-Agent": _USER_AGENT,
        "Accept": "text/html,text/plain;q=0.9,*/*;q=0.5",
        "Accept-Encoding": "identity",  # the byte cap counts what is read
    }
    error: Exception | None = None
    for address in target.addresses:
        remaining = max(0.5, deadline - time.monotonic())
        pool = _pool(https, address, port, target.host, min(remaining, 10.0), remaining)
        try:
            return pool.urlopen(
                "GET", path, headers=headers, redirect=False, retries=False,
                preload_content=False, assert_same_host=False,
            )  # fmt: skip
        except urllib3.exceptions.NewConnectionError as failure:  # try the next address
            error = failure
        except _network_errors() as failure:
            raise _unreachable(url, failure, timeout) from failure
    raise _unreachable(url, error, timeout)


def _pool(https: bool, address: str, port: int, name: str, connect: float, read: float):
    import urllib3

    timeout = urllib3.Timeout(connect=connect, read=read)
    if not https:
        return urllib3.HTTPConnectionPool(address, port, timeout=timeout, maxsize=1)
    import certifi

    return urllib3.HTTPSConnectionPool(
        address, port, timeout=timeout, maxsize=1, server_hostname=name,
        cert_reqs="CERT_REQUIRED", ca_certs=certifi.where(),
    )  # fmt: skip


def _network_errors() -> tuple[type[Exception], ...]:
    import urllib3

    return (urllib3.exceptions.HTTPError, OSError)


def _unreachable(url: str, error: Exception | None, timeout: float) -> ToolExecutionError:
    import urllib3

    refused = isinstance(error, urllib3.exceptions.NewConnectionError)  # a TimeoutError too
    if not refused and isinstance(error, (urllib3.exceptions.TimeoutError, TimeoutError)):
        return ToolExecutionError(_timed_out(url, timeout))
    return ToolExecutionError(
        f"Could not reach {url}: {type(error).__name__}. The site may be down, the address "
        "wrong, or this machine offline."
    )


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
