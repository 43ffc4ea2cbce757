"""`python -m smolui.api.keys`: make, list and revoke API keys in the conversation database.

    python -m smolui.api.keys add alice      # prints the new key as its last line
    python -m smolui.api.keys list
    python -m smolui.api.keys revoke smolui-AbCdEfG

The database is the app's: `SMOLUI_DATABASE_URL`, else `smolui.db` in `SMOLUI_DATA_DIR`
(default `./data`), or `--database-url` / `--data-dir`. Only a digest of each key is kept;
the key is shown once.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from smolui.auth.keys import ApiKeys
from smolui.store import StoreUnavailableError, open_store
from smolui.store.api_keys import StoreKeyRows


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m smolui.api.keys", description=__doc__,
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
