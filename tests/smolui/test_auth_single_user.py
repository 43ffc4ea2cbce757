"""The old one-user form of SMOLUI_AUTH ('user:password'): a value shaped like several users
is refused at start with the documented way to have several (issue 31)."""

from __future__ import annotations

import pytest

from smolui.app.settings import settings_from_args
from smolui.auth import AuthConfig, SignIn


def refusal(capsys, environ: dict[str, str]) -> str:
    """What the app prints when it refuses to start with these variables."""
    with pytest.raises(SystemExit) as stopped:
        settings_from_args([], environ)
    assert stopped.value.code == 2
    return capsys.readouterr().err


def test_several_users_in_the_one_user_form_stop_the_start(capsys):
    said = refusal(capsys, {"SMOLUI_AUTH": "alice:pw1,bob:pw2"})
    assert "several users (alice, bob)" in said
    assert "SMOLUI_AUTH=password" in said and "SMOLUI_USERS" in said
    assert "python -m smolui.auth.passwords" in said
    assert "pw1" not in said and "pw2" not in said  # passwords stay off the console


def test_the_flag_says_the_same(capsys):
    with pytest.raises(SystemExit):
        settings_from_args(["--auth", "alice:pw1, carol:pw3"], {})
    assert "several users (alice, carol)" in capsys.readouterr().err


@pytest.mark.parametrize("password", ["pw1,2,3", "a,b", "x:y", "p,:q", "p, not a name:q"])
def test_a_password_with_commas_or_colons_is_still_one_user(password):
    settings = settings_from_args([], {"SMOLUI_AUTH": f"alice:{password}"})
    book = SignIn(AuthConfig.from_settings(settings)).book
    assert book is not None and book.check("alice", password)


def test_a_value_without_a_password_says_what_is_expected(capsys):
    said = refusal(capsys, {"SMOLUI_AUTH": "alice"})
    assert "one 'user:password'" in said
