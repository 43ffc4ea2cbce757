"""The old `--auth user:password` form: one user and their password, in the clear."""

from __future__ import annotations


def single_user(auth: str) -> tuple[str, str]:
    """The one (user, password) of the old `--auth user:password` form.

    A value shaped like several users ("alice:pw1,bob:pw2") is refused rather than read as
    one user whose password holds the rest: several users are `SMOLUI_AUTH=password` with
    `SMOLUI_USERS`, where passwords are stored as hashes.

    Args:
        auth: The value of `--auth` or `SMOLUI_AUTH`.

    Raises:
        ValueError: The value is not one 'user:password', with what to write instead.
    """
    user, sep, password = auth.partition(":")
    if not sep or not user or not password:
        raise ValueError("expected 'none', 'password', 'hf' or one 'user:password'")
    from smolui.auth.passwords import NAME_PATTERN

    others = [part.partition(":") for part in password.split(",")[1:]]
    named = [
        name.strip() for name, colon, _ in others if colon and NAME_PATTERN.match(name.strip())
    ]
    if named:
        raise ValueError(
            f"this looks like several users ({', '.join([user.strip(), *named])}), but "
            "'user:password' takes one user. For several users set SMOLUI_AUTH=password and "
            "SMOLUI_USERS to 'name:bcrypt-hash' lines (python -m smolui.auth.passwords NAME "
            "prints one); see the README's 'Sign-in'."
        )
    return user, password


__all__ = ["single_user"]
