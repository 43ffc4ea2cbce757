"""How visitors sign in: the mode, the users, the admins; and the error a bad setup raises."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

AUTH_MODES = ("none", "password", "hf")


class AuthSetupError(ValueError):
    """Sign-in is configured in a way that cannot work; the message says how to fix it."""


@dataclass(frozen=True)
class AuthConfig:
    """The sign-in part of the settings.

    Args:
        mode: "none" (anyone; each browser owns its conversations), "password" (a login
            page; users from `users` or `single_user`) or "hf" (Sign in with Hugging Face).
        users: `SMOLUI_USERS`: a file of `name:bcrypt-hash` lines, or the lines themselves.
        single_user: One (name, password) pair, the old `--auth user:password`.
        admins: User names that may see everyone's usage.
        require: Whether only signed-in visitors may call the model: None (the default)
            when a sign-in mode is set; False lets visitors who did not sign in chat too (in
            `hf` mode), limited per address; True needs a sign-in mode.
    """

    mode: str = "none"
    users: str | None = field(default=None, repr=False)
    single_user: tuple[str, str] | None = field(default=None, repr=False)
    admins: tuple[str, ...] = ()
    require: bool | None = None

    @classmethod
    def from_settings(cls, settings: Any) -> AuthConfig:
        """The sign-in settings out of the app's `Settings`.

        Args:
            settings: The app's settings (auth_mode, users, auth, admins).
        """
        mode = settings.auth_mode
        if mode == "none" and settings.auth is not None:
            mode = "password"  # `--auth user:password` alone still asks for that password
        return cls(
            mode=mode,
            users=settings.users,
            single_user=settings.auth,
            admins=settings.admins,
            require=settings.require_sign_in,
        )

    def problem(self) -> str | None:
        """What is wrong with this configuration, or None."""
        if self.mode not in AUTH_MODES:
            return f"sign-in mode must be one of {', '.join(AUTH_MODES)}, not {self.mode!r}"
        if self.mode == "password" and not (self.users or self.single_user):
            return (
                "sign-in mode 'password' needs users: set SMOLUI_USERS (or --users) to a file of "
                "'name:bcrypt-hash' lines (python -m smolui.auth.passwords NAME prints one)"
            )
        if self.mode != "password" and self.users:
            return f"SMOLUI_USERS is set but the sign-in mode is {self.mode!r}; use 'password'"
        if self.require and self.mode == "none":
            return (
                "SMOLUI_REQUIRE_SIGN_IN=1 needs a way to sign in: set SMOLUI_AUTH to 'password' "
                "or 'hf'"
            )
        return None
