"""`E2BExecutor`: a kernel gateway inside an E2B cloud sandbox (a Firecracker microVM).

Needs `pip install e2b-code-interpreter` and `E2B_API_KEY`. The sandbox's own code API
has no way for running code to call back to the host, so a Jupyter Kernel Gateway with
this executor's token is started inside it and reached through E2B's public URL for its
port; from then on it works like `executor_type="jupyter"` (tools stay on the host).
"""

from __future__ import annotations

import os
import shlex
from typing import Any

from agents.errors import AgentConfigError
from agents.executors.remote.provisioned import (
    GATEWAY_PORT,
    ProvisionedExecutor,
    gateway_command,
    require_sdk,
)

KEY_ENV = "E2B_API_KEY"


class E2BExecutor(ProvisionedExecutor):
    """Runs code in a kernel inside an E2B sandbox (`executor_type="e2b"`).

    Args:
        api_key: The E2B key (default: `E2B_API_KEY`).
        template: The sandbox template (its image must allow `pip install`).
        sandbox_timeout_s: How long E2B keeps the sandbox alive without being closed.
        **kwargs: `RemoteExecutor` arguments (timeout, import policy, upload folders...).
    """

    kind = "e2b"

    def __init__(
        self,
        api_key: str | None = None,
        *,
        template: str | None = None,
        sandbox_timeout_s: int = 3600,
        **kwargs: Any,
    ):
        super().__init__(**kwargs)
        self._sdk = require_sdk("e2b_code_interpreter", "e2b-code-interpreter", "e2b")
        self.api_key = api_key or os.environ.get(KEY_ENV)
        if not self.api_key:
            raise AgentConfigError(
                f"executor_type='e2b' needs an E2B API key: set {KEY_ENV} "
                "(https://e2b.dev/dashboard) or executor_kwargs={'api_key': ...}."
            )
        self.template = template
        self.sandbox_timeout_s = sandbox_timeout_s
        self.sandbox: Any = None

    def _provision(self) -> str:
        options: dict[str, Any] = {"api_key": self.api_key, "timeout": self.sandbox_timeout_s}
        if self.template:
            options["template"] = self.template
        self.sandbox = self._sdk.Sandbox(**options)
        serve = " ".join(shlex.quote(part) for part in gateway_command())
        self.sandbox.commands.run(
            "pip install -q 'jupyter_kernel_gateway>=3.0' 'ipykernel>=6.29' && " + serve,
            background=True,
            envs={"KG_AUTH_TOKEN": self.token},
        )
        return f"https://{self.sandbox.get_host(GATEWAY_PORT)}"

    def _release(self) -> None:
        sandbox, self.sandbox = self.sandbox, None
        self.url = ""
        if sandbox is not None:
            sandbox.kill()

    def _where(self) -> dict[str, Any]:
        return {
            "where": self.url or "E2B (starts with the first step)",
            "level": "E2B cloud sandbox (a Firecracker microVM per executor; it has internet)",
        }
