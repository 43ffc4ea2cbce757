"""Sign-in: none (local use), password (a login page, bcrypt hashes) or Hugging Face OAuth.

`SignIn` is built once from the settings; every event handler asks it who the request comes
from (`identify`), and the conversations of a signed-in user belong to that user.

API keys for the other ways in live in `keys`; its command line (`python -m smolui.auth.keys`)
opens the conversation database, the one import of the store here.

May import: smolui.store.
"""

from smolui.auth.config import AUTH_MODES, AuthConfig, AuthSetupError
from smolui.auth.identity import Identity, SignedInState, signed_in_owner, with_identity
from smolui.auth.passwords import PasswordBook, PasswordFileError, hash_password, load_users
from smolui.auth.sign_in import SignIn

__all__ = [
    "AUTH_MODES",
    "AuthConfig",
    "AuthSetupError",
    "Identity",
    "PasswordBook",
    "PasswordFileError",
    "SignIn",
    "SignedInState",
    "hash_password",
    "load_users",
    "signed_in_owner",
    "with_identity",
]
