"""Sign-in: the users file, the password check, the modes, identities and owner ids."""

from __future__ import annotations

import asyncio
import concurrent.futures

import gradio as gr
import pytest

from smolui.app.settings import Settings, settings_from_args
from smolui.auth import (
    AuthConfig,
    AuthSetupError,
    Identity,
    PasswordBook,
    PasswordFileError,
    SignedInState,
    SignIn,
    hash_password,
    load_users,
    signed_in_owner,
    with_identity,
)
from smolui.auth.hf import check_oauth_environment, profile_name
from smolui.auth.passwords import main as passwords_main
from smolui.handlers.conversations import owner_of

SPACE = {
    "SYSTEM": "spaces",
    "SPACE_ID": "me/app",
    "OAUTH_CLIENT_ID": "client-id",
    "OAUTH_CLIENT_SECRET": "client-secret",
    "OAUTH_SCOPES": "openid profile",
    "OPENID_PROVIDER_URL": "https://huggingface.co",
}


@pytest.fixture(scope="module")
def users_file(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("auth") / "users.txt"
    lines = [
        "# the team",
        f"alice:{hash_password('wonderland', rounds=4)}",
        "",
        f"bob:{hash_password('builder', rounds=4)}  # ops",
    ]
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_users_file_checks_passwords(users_file):
    book = load_users(users_file)
    assert book.names == ["alice", "bob"]
    assert book.check("alice", "wonderland")
    assert book.check("bob", "builder")
    assert not book.check("alice", "builder")
    assert not book.check("carol", "wonderland")
    assert not book.check("alice", "x" * 100)  # beyond bcrypt's 72 bytes: refused, not cut


def test_users_inline_as_a_space_secret():
    value = f"alice:{hash_password('one', rounds=4)},bob:{hash_password('two', rounds=4)}"
    book = load_users(value)
    assert book.check("bob", "two") and not book.check("bob", "one")


@pytest.mark.parametrize(
    "line, message",
    [
        ("alice:wonderland", "not a bcrypt hash"),
        ("no separator here", "expected 'name:bcrypt-hash'"),
        ("bad name:$2b$04$" + "a" * 53, "expected 'name:bcrypt-hash'"),
    ],
)
def test_bad_users_lines_say_which_and_why(line, message):
    with pytest.raises(PasswordFileError, match=message) as caught:
        PasswordBook.parse(["# header", line], "users.txt")
    assert "users.txt, entry 2" in str(caught.value)


def test_duplicate_user_and_missing_file(tmp_path):
    digest = hash_password("pw", rounds=4)
    with pytest.raises(PasswordFileError, match="appears twice"):
        PasswordBook.parse([f"alice:{digest}", f"alice:{digest}"])
    with pytest.raises(PasswordFileError, match="cannot read the users file"):
        load_users(str(tmp_path / "nope.txt"))
    (tmp_path / "empty.txt").write_text("# nobody yet\n")
    with pytest.raises(PasswordFileError, match="lists no users"):
        load_users(str(tmp_path / "empty.txt"))


def test_password_tool_prints_a_usable_line(monkeypatch, capsys):
    answers = iter(["s3cret!", "s3cret!"])
    monkeypatch.setattr("getpass.getpass", lambda prompt="": next(answers))
    assert passwords_main(["carol"]) == 0
    line = capsys.readouterr().out.strip()
    assert PasswordBook.parse([line]).check("carol", "s3cret!")
    assert passwords_main(["bad name"]) == 2


def test_password_mode_gives_gradio_an_async_check(users_file):
    sign_in = SignIn(AuthConfig(mode="password", users=users_file))
    options = sign_in.launch_options()
    assert asyncio.iscoroutinefunction(options["auth"])  # bcrypt runs off the event loop
    assert run_in_new_loop(options["auth"]("alice", "wonderland")) is True
    assert run_in_new_loop(options["auth"]("alice", "nope")) is False
    assert "Sign in" in options["auth_message"]


def test_old_single_user_flag_still_works():
    settings = settings_from_args([], {"SMOLUI_AUTH": "admin:hunter2"})
    config = AuthConfig.from_settings(settings)
    assert config.mode == "password"
    book = SignIn(config).book
    assert book is not None and book.check("admin", "hunter2") and not book.check("admin", "x")


def test_mode_from_flag_and_environment(users_file):
    settings = settings_from_args(["--auth", "password", "--users", users_file, "--admins", "bob"])
    assert (settings.auth_mode, settings.users, settings.admins) == (
        "password",
        users_file,
        ("bob",),
    )
    assert settings_from_args([], {}).auth_mode == "none"
    with pytest.raises(SystemExit):
        settings_from_args(["--auth", "password"], {})  # no users
    assert "users" not in repr(Settings(users="alice:$2b$secret"))  # hashes stay out of logs


def test_bad_setups_fail_with_a_way_out(tmp_path):
    with pytest.raises(AuthSetupError, match="SMOLUI_USERS"):
        SignIn(AuthConfig(mode="password"))
    with pytest.raises(AuthSetupError, match="cannot read the users file"):
        SignIn(AuthConfig(mode="password", users=str(tmp_path / "missing")))
    with pytest.raises(AuthSetupError, match="must be one of"):
        SignIn(AuthConfig(mode="ldap"))


def test_identity_from_a_password_request(users_file):
    sign_in = SignIn(AuthConfig(mode="password", users=users_file, admins=("bob",)))
    request = gr.Request(username="alice", client={"host": "10.0.0.7", "port": 1})
    alice = sign_in.identify(request)
    assert (alice.owner, alice.admin, alice.client) == ("password:alice", False, "10.0.0.7")
    assert sign_in.identify(gr.Request(username="bob")).admin
    nobody = sign_in.identify(gr.Request(username=None))
    assert not nobody.signed_in and nobody.owner is None
    assert sign_in.refusal(nobody) and sign_in.refusal(alice) is None


def test_identity_from_the_hf_profile_gradio_injects():
    sign_in = SignIn(AuthConfig(mode="hf", admins=("julien",)), environ=SPACE)
    # What gradio builds from the session's userinfo before calling a handler.
    profile = gr.OAuthProfile(
        {
            "name": "Julien",
            "preferred_username": "julien",
            "profile": "https://huggingface.co/julien",
            "picture": "",
        }
    )
    user = sign_in.identify(gr.Request(username=None), profile)
    assert (user.owner, user.name, user.admin) == ("hf:julien", "julien", True)
    assert profile_name(None) is None
    anonymous = sign_in.identify(gr.Request(username=None), None)
    assert "Sign in with Hugging Face" in sign_in.refusal(anonymous)
    assert sign_in.launch_options() == {}  # gradio's OAuth routes need no launch option


def test_hf_mode_refuses_setups_where_gradio_oauth_cannot_work():
    with pytest.raises(AuthSetupError, match="hf_oauth: true"):
        check_oauth_environment({"SYSTEM": "spaces", "SPACE_ID": "me/app"})
    with pytest.raises(AuthSetupError, match="HF_TOKEN"):
        check_oauth_environment({})
    check_oauth_environment({"HF_TOKEN": "hf_x"})  # gradio mocks sign-in with that account


def test_hf_mode_puts_the_login_button_on_the_page(monkeypatch):
    # As on a Space with `hf_oauth: true` (gradio reads the OAuth app at import; no network
    # is used until someone signs in). Elsewhere gradio would ask the Hub whose HF_TOKEN it is.
    import gradio.oauth

    for name, value in SPACE.items():
        monkeypatch.setenv(name, value)
        if hasattr(gradio.oauth, name):
            monkeypatch.setattr(gradio.oauth, name, value)
    sign_in = SignIn(AuthConfig(mode="hf"))
    with gr.Blocks() as demo:
        button = sign_in.add_button()
    assert isinstance(button, gr.LoginButton)
    assert demo.expects_oauth
    paths = {getattr(route, "path", None) for route in demo.app.routes}
    assert {"/login/huggingface", "/login/callback", "/logout"} <= paths
    with gr.Blocks() as plain:
        assert SignIn(AuthConfig()).add_button() is None
    assert not plain.expects_oauth


def test_only_the_server_can_name_a_signed_in_owner():
    forged = {"owner": "password:alice", "current": None}
    assert signed_in_owner(forged) is None
    assert owner_of(forged) != "password:alice"  # the browser cannot claim a user
    alice = Identity(provider="password", name="alice")
    state = with_identity({"owner": "k" * 43, "current": "c1"}, alice)
    assert isinstance(state, SignedInState)
    assert signed_in_owner(state) == "password:alice" and state["current"] == "c1"
    assert owner_of(state) == "password:alice"
    anonymous = {"owner": "k" * 43}
    assert with_identity(anonymous, Identity()) is anonymous


def run_in_new_loop(coroutine):
    """Await `coroutine` in a thread of its own: an earlier test (e.g. Playwright's sync API)
    may have left an event loop running in this one."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()
