"""API keys: made for a user, shown once, kept only as a SHA-256 digest.

A key opens the app's other ways in (`/v1`, the MCP server) as its user, who then owns the
conversations those calls make, as if signed in. A key is 256 random bits, so a plain digest
is enough to keep it at rest (no slow hash is needed against guessing). Where the digests
live is the caller's choice (`KeyRows`: the conversation database in the app).

The command line opens that database (`SMOLUI_DATABASE_URL`, else `smolui.db` in
`SMOLUI_DATA_DIR`, default `./data`; or `--database-url` / `--data-dir`)::

    python -m smolui.auth.keys add alice      # prints the new key as its last line
    python -m smolui.auth.keys list
    python -m smolui.auth.keys revoke smolui-AbCdEfG
"""

from __future__ import annotations

import argparse
import hashlib
import os
import secrets
import sys
from collections.abc import Sequence
from typing import Protocol

KEY_PREFIX = "smolui-"
SHOWN_CHARS = 14  # "smolui-" and 7 more: enough to tell a user's keys apart in `list`


class KeyRows(Protocol):
    """Where key digests are kept."""

    def add(self, user: str, digest: str, prefix: str) -> None:
        """Keep a new key's digest for `user`."""

    def user_for(self, digest: str) -> str | None:
        """The user of the working key with this digest, or None."""

    def any_active(self) -> bool:
        """True when at least one key works."""


def make_key() -> str:
    """A new key: `smolui-` and 256 random bits, URL-safe."""
    return KEY_PREFIX + secrets.token_urlsafe(32)


def key_digest(key: str) -> str:
    """The SHA-256 hex digest a key is kept as.

    Args:
        key: The key.
    """
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def key_prefix(key: str) -> str:
    """The first characters of a key, shown by `list` and used by `revoke`.

    Args:
        key: The key.
    """
    return key[:SHOWN_CHARS]


def valid_user(user: str) -> bool:
    """Whether `user` can own keys: a non-empty name without spaces or colons.

    Args:
        user: The name.
    """
    return bool(user) and len(user) <= 100 and not any(c.isspace() or c == ":" for c in user)


class ApiKeys:
    """Make keys and tell whose a presented key is.

    Args:
        rows: Where the digests are kept.
    """

    def __init__(self, rows: KeyRows):
        self.rows = rows

    def add(self, user: str) -> str:
        """Make a key for `user`; the only time the key itself exists outside the caller.

        Args:
            user: Who gets it (a user name, as they sign in).

        Raises:
            ValueError: The name is empty or has spaces or colons.
        """
        if not valid_user(user):
            raise ValueError(f"not a user name: {user!r} (no spaces or colons)")
        key = make_key()
        self.rows.add(user, key_digest(key), key_prefix(key))
        return key

    def user_for(self, key: str) -> str | None:
        """The user of this key, or None (unknown, revoked, or not a key at all).

        Args:
            key: What the client presented.
        """
        if not key.startswith(KEY_PREFIX) or len(key) > 200:
            return None
        return self.rows.user_for(key_digest(key))

    def any_active(self) -> bool:
        """True when at least one key works (then every call needs one)."""
        return self.rows.any_active()


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m smolui.auth.keys", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    parser.add_argument("--data-dir", default=os.environ.get("SMOLUI_DATA_DIR") or "data")
    parser.add_argument("--database-url", default=os.environ.get("SMOLUI_DATABASE_URL"))
    commands = parser.add_subparsers(dest="command", required=True)
    add = commands.add_parser("add", help="make a key for USER and print it")
    add.add_argument("user", help="the user name, as they sign in (e.g. alice)")
    commands.add_parser("list", help="list keys (their prefixes, never the keys)")
    revoke = commands.add_parser("revoke", help="revoke the key with this prefix")
    revoke.add_argument("prefix", help="the key's prefix as `list` shows it")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code.

    Args:
        argv: The arguments (default: `sys.argv[1:]`).
    """
    from smolui.store import StoreUnavailableError, open_store
    from smolui.store.api_keys import StoreKeyRows

    args = _parser().parse_args(argv)
    try:
        store = open_store(args.data_dir, args.database_url)
    except StoreUnavailableError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    try:
        rows = StoreKeyRows(store.engine)
        if args.command == "add":
            try:
                key = ApiKeys(rows).add(args.user)
            except ValueError as error:
                print(f"error: {error}", file=sys.stderr)
                return 2
            print(f"API key for {args.user} (shown once; only its digest is kept):")
            print(key)
        elif args.command == "list":
            for info in rows.list():
                state = f"revoked {info.revoked:%Y-%m-%d}" if info.revoked else "active"
                print(f"{info.prefix}  {info.user}  made {info.created:%Y-%m-%d}  {state}")
        else:
            count = rows.revoke(args.prefix)
            print(f"revoked {count} key(s)")
            return 0 if count else 1
        return 0
    finally:
        store.close()


if __name__ == "__main__":
    sys.exit(main())
