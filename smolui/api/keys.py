"""`python -m smolui.api.keys`: the same command as `python -m smolui.auth.keys` (make, list and
revoke API keys), under the name of the package that uses the keys."""

from __future__ import annotations

import sys

from smolui.auth.keys import main

if __name__ == "__main__":
    sys.exit(main())
