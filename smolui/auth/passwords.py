"""Password sign-in: a book of `name:bcrypt-hash` lines, checked without blocking the server.

`SMOLUI_USERS` names a file of such lines, or holds the lines themselves (a Space secret cannot
be a file): one user per line (or separated by commas), `#` starts a comment. Make a line with
`python -m smolui.auth.passwords NAME` (it asks for the password and prints `NAME:HASH`).
"""

from __future__ import annotations

import getpass
import hmac
import logging
import re
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

import bcrypt

logger = logging.getLogger(__name__)

NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@+-]{0,63}$")
_HASH_PREFIXES = ("$2a$", "$2b$", "$2y$")
MAX_PASSWORD_BYTES = 72  # bcrypt ignores bytes beyond 72; refuse them instead of truncating
DEFAULT_ROUNDS = 12


class PasswordFileError(ValueError):
    """The users file (or SMOLUI_USERS) cannot be used; the message says which line and why."""


def hash_password(password: str, rounds: int = DEFAULT_ROUNDS) -> str:
    """A bcrypt hash of `password`, for a users file line.

    Args:
        password: The password (at most 72 bytes in UTF-8).
        rounds: bcrypt's cost factor (each step doubles the work).

    Raises:
        ValueError: The password is empty or longer than bcrypt can hash.
    """
    data = password.encode()
    if not data or len(data) > MAX_PASSWORD_BYTES:
        raise ValueError(f"a password must be 1 to {MAX_PASSWORD_BYTES} bytes long")
    return bcrypt.hashpw(data, bcrypt.gensalt(rounds)).decode()


class PasswordBook:
    """Users and their bcrypt hashes; `check` answers whether a name and password match.

    Every check costs one bcrypt of the users' cost, whatever the name: an unknown name (or a
    plain-password user, or an over-long password) is checked against a decoy hash of that
    same cost, so the login's timing does not tell which names exist.

    Args:
        hashes: User name -> bcrypt hash.
        plain: User name -> plain password (the single `--auth user:password` of old setups;
            compared in constant time).
    """

    def __init__(self, hashes: Mapping[str, str], plain: Mapping[str, str] | None = None):
        self._hashes = {name: value.encode() for name, value in hashes.items()}
        self._plain = dict(plain or {})
        self.rounds = _users_rounds(self._hashes.values())
        self._decoy = bcrypt.hashpw(b"decoy", bcrypt.gensalt(self.rounds))

    @property
    def names(self) -> list[str]:
        """Every user name, sorted."""
        return sorted({*self._hashes, *self._plain})

    def __len__(self) -> int:
        return len(self.names)

    def with_plain_user(self, name: str, password: str) -> PasswordBook:
        """A copy that also accepts `name` with the plain `password` (the old `--auth`).

        Args:
            name: The user name.
            password: Their password.
        """
        hashes = {user: value.decode() for user, value in self._hashes.items()}
        return PasswordBook(hashes, {**self._plain, name: password})

    def check(self, name: str, password: str) -> bool:
        """True when `password` is `name`'s password.

        Args:
            name: The user name typed on the login page.
            password: The password typed.
        """
        data = password.encode()
        stored = self._hashes.get(name)
        if stored is None or len(data) > MAX_PASSWORD_BYTES:
            bcrypt.checkpw(data[:MAX_PASSWORD_BYTES], self._decoy)  # the same cost, no answer
            plain = self._plain.get(name)
            return plain is not None and hmac.compare_digest(data, plain.encode())
        return bcrypt.checkpw(data, stored)

    async def acheck(self, name: str, password: str) -> bool:
        """`check` in a worker thread: bcrypt takes a fraction of a second of CPU, which must
        not stall the server's event loop (gradio awaits an async `auth=` function).

        Args:
            name: The user name typed on the login page.
            password: The password typed.
        """
        import anyio

        accepted = await anyio.to_thread.run_sync(self.check, name, password)
        if not accepted:
            logger.info("failed sign-in for %r", name)
        return accepted

    @classmethod
    def parse(cls, lines: Iterable[str], source: str = "SMOLUI_USERS") -> PasswordBook:
        """Read `name:bcrypt-hash` lines.

        Args:
            lines: The lines (blank ones and `#` comments are skipped).
            source: Where they come from, for error messages.

        Raises:
            PasswordFileError: A line is not `name:hash`, a name repeats, or a hash is not bcrypt.
        """
        hashes: dict[str, str] = {}
        for number, raw in enumerate(lines, start=1):
            line = raw.split("#", 1)[0].strip()  # a bcrypt hash never holds "#"
            if not line:
                continue
            name, sep, value = line.partition(":")
            name, value = name.strip(), value.strip()
            where = f"{source}, entry {number}"
            if not sep or not NAME_PATTERN.match(name):
                raise PasswordFileError(
                    f"{where}: expected 'name:bcrypt-hash' with a name of letters, digits and "
                    "._@+- (make a line with: python -m smolui.auth.passwords NAME)"
                )
            if not value.startswith(_HASH_PREFIXES) or len(value) != 60:
                raise PasswordFileError(
                    f"{where}: the password of {name!r} is not a bcrypt hash; store hashes, never "
                    "passwords (make one with: python -m smolui.auth.passwords NAME)"
                )
            if name in hashes:
                raise PasswordFileError(f"{where}: user {name!r} appears twice")
            hashes[name] = value
        return cls(hashes)


def hash_rounds(value: bytes) -> int:
    """The cost factor written in a bcrypt hash (`$2b$12$...` -> 12).

    Args:
        value: The hash.
    """
    return int(value[4:6])


def _users_rounds(hashes: Iterable[bytes]) -> int:
    """The cost the decoy must have: the users' (their highest, if they differ)."""
    rounds = {hash_rounds(value) for value in hashes}
    if len(rounds) > 1:
        # A user whose hash is cheaper than the decoy answers faster than an unknown name.
        logger.warning("users' bcrypt costs differ (%s): re-hash them at one cost", sorted(rounds))
    return max(rounds, default=DEFAULT_ROUNDS)


def load_users(spec: str) -> PasswordBook:
    """The users named by `SMOLUI_USERS`: a file path, or the lines themselves.

    Args:
        spec: A path to a file of `name:bcrypt-hash` lines, or such lines separated by
            newlines or commas.

    Raises:
        PasswordFileError: The file cannot be read, is empty, or has a bad line.
    """
    text = spec.strip()
    if ":$2" in text:  # the lines themselves (a hash always starts with $2)
        return _non_empty(PasswordBook.parse(re.split(r"[\n,]", text)), "SMOLUI_USERS")
    path = Path(text).expanduser()
    try:
        content = path.read_text(encoding="utf-8")
    except OSError as error:
        raise PasswordFileError(
            f"cannot read the users file {str(path)!r} (SMOLUI_USERS): {error.strerror or error}"
        ) from None
    return _non_empty(PasswordBook.parse(content.splitlines(), str(path)), str(path))


def _non_empty(book: PasswordBook, source: str) -> PasswordBook:
    if not len(book):
        raise PasswordFileError(f"{source} lists no users; add 'name:bcrypt-hash' lines")
    return book


def main(argv: list[str] | None = None) -> int:
    """Print a users-file line for a name, asking for the password twice.

    Args:
        argv: `[NAME]` (default: `sys.argv[1:]`).
    """
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or not NAME_PATTERN.match(args[0]):
        usage = "usage: python -m smolui.auth.passwords NAME   (prints NAME:bcrypt-hash)"
        print(usage, file=sys.stderr)
        return 2
    password = getpass.getpass(f"password for {args[0]}: ")
    if password != getpass.getpass("again: "):
        print("the passwords differ", file=sys.stderr)
        return 1
    try:
        print(f"{args[0]}:{hash_password(password)}")
    except ValueError as error:
        print(str(error), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
