"""`SignIn`: the app's sign-in, built once from the settings, asked on every request who it is."""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from typing import Any

from smolui.auth import hf
from smolui.auth.config import AuthConfig, AuthSetupError
from smolui.auth.identity import ANONYMOUS, Identity, client_address
from smolui.auth.login_origin import SameOriginLogin
from smolui.auth.login_page import LoginPageNotice
from smolui.auth.passwords import PasswordBook, PasswordFileError, load_users
from smolui.auth.proxy_peers import NO_PROXIES, Proxies
from smolui.auth.throttle import LoginGuard, LoginLimits, LoginThrottle

logger = logging.getLogger(__name__)

LOGIN_MESSAGE = "Sign in to chat. Ask the person who runs this app for an account."
HF_SIGN_IN_NEEDED = "Sign in with Hugging Face (the button at the top) to chat."


class SignIn:
    """How visitors sign in, and who a request comes from.

    Args:
        config: The sign-in settings.
        environ: The environment (for `hf`: is this a Space with OAuth?); default `os.environ`.
        proxies: The proxies in front of the app whose `X-Forwarded-For` is believed
            (default none: the connection's address; see `identity.client_address`).
        login_limits: What password sign-in attempts may cost (default `LoginLimits()`).

    Raises:
        AuthSetupError: The configuration cannot work (no users, an unreadable users file,
            `hf` outside a Space without a token...); the message says how to fix it.
    """

    def __init__(
        self,
        config: AuthConfig,
        environ: Mapping[str, str] | None = None,
        proxies: Proxies = NO_PROXIES,
        login_limits: LoginLimits | None = None,
    ):
        problem = config.problem()
        if problem:
            raise AuthSetupError(problem)
        self.config = config
        self.proxies = proxies
        self.book: PasswordBook | None = None
        self.throttle: LoginThrottle | None = None
        if config.mode == "password":
            self.book = _password_book(config)
            self.throttle = LoginThrottle(login_limits)
        elif config.mode == "hf":
            hf.check_oauth_environment(os.environ if environ is None else environ)

    @property
    def mode(self) -> str:
        """ "none", "password" or "hf"."""
        return self.config.mode

    @property
    def required(self) -> bool:
        """True when only signed-in users may chat (and call the model any other way)."""
        if self.config.require is not None:
            return self.config.require
        return self.mode != "none"

    def launch_options(self) -> dict[str, Any]:
        """Options for `launch` / `gr.mount_gradio_app`: in password mode the login page, its
        check, and the throttle in front of it (middleware of gradio's own app)."""
        if self.book is None or self.throttle is None:
            return {}
        from starlette.middleware import Middleware

        guard = Middleware(LoginGuard, throttle=self.throttle, proxies=self.proxies)
        notice = Middleware(LoginPageNotice)  # the page shows a 429's message
        own_page = Middleware(SameOriginLogin, proxies=self.proxies)
        return {
            "auth": self.book.acheck,
            "auth_message": LOGIN_MESSAGE,
            "app_kwargs": {"middleware": [notice, own_page, guard]},
        }

    def add_button(self) -> Any:
        """Put the "Sign in with Hugging Face" button on the page in `hf` mode (call inside the
        Blocks); returns it, or None in the other modes."""
        return hf.login_button() if self.mode == "hf" else None

    def identify(self, request: Any, profile: Any = None) -> Identity:
        """Who sent `request`.

        Args:
            request: The `gr.Request` (its `username` is set after a password sign-in).
            profile: The `gr.OAuthProfile` gradio injects after a Hugging Face sign-in.
        """
        client = client_address(request, self.proxies)
        name, provider = None, ANONYMOUS
        if self.mode == "password":
            name = request.username if request is not None else None
            provider = "password"
        elif self.mode == "hf":
            name, provider = hf.profile_name(profile), "hf"
        if not name:
            return Identity(client=client)
        admin = name in self.config.admins
        return Identity(provider=provider, name=str(name), admin=admin, client=client)

    def refusal(self, identity: Identity) -> str | None:
        """Why this visitor may not chat (not signed in where sign-in is required), or None.

        Args:
            identity: Who is asking.
        """
        if not self.required or identity.signed_in:
            return None
        return HF_SIGN_IN_NEEDED if self.mode == "hf" else LOGIN_MESSAGE


def _password_book(config: AuthConfig) -> PasswordBook:
    if config.users:
        try:
            book = load_users(config.users)
        except PasswordFileError as error:
            raise AuthSetupError(str(error)) from None
    else:
        book = PasswordBook({})
    if config.single_user is not None:
        name, password = config.single_user
        if name in book.names:
            raise AuthSetupError(f"user {name!r} is both in SMOLUI_USERS and in --auth")
        book = book.with_plain_user(name, password)
    logger.info("password sign-in: %d users", len(book))
    return book
