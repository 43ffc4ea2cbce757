"""Settings: everything the app is configured with, read once from CLI flags and environment.

`app.py` builds one `Settings` at start-up; nothing else reads the environment afterwards.
Secrets (HF_TOKEN, provider keys) are not settings: model backends read them themselves.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from smolui.uploads.policy import MB, UploadPolicy


@dataclass(frozen=True)
class Settings:
    """The app's configuration. Immutable: change it by building a new one.

    Args:
        model: Model spec string ("local", "scripted:...", "hf:<id>", "openai:<id>@<url>", ...).
        models: Model specs a visitor may pick for a new conversation (the sidebar shows a
            picker when there are two or more); `model` stays the default.
        agent_type: "code" (CodeAgent) or "tool_calling" (ToolCallingAgent).
        tools: Names of the tools to give each agent.
        executor: Where code runs: "sandbox" (confined worker), "local" (in-process), or a
            remote Jupyter kernel: "jupyter" (needs `executor_url`), "docker", "e2b", "modal".
        executor_url: The Jupyter Kernel/Enterprise Gateway URL for `executor="jupyter"`
            (its token is a secret: environment variable SMOLUI_EXECUTOR_TOKEN only).
        sandbox_memory_mb: Memory (address space) each sandbox worker may use.
        host: Interface to bind (127.0.0.1 locally, 0.0.0.0 on Spaces).
        port: TCP port (7860 by default, as Spaces expects).
        concurrency: How many turns may run at once across all sessions.
        max_file_size_mb: Largest upload accepted, in megabytes.
        max_files: Most files attached to one message.
        max_steps: Steps per turn before the agent must answer.
        planning_interval: Plan every N steps (None: never).
        share: Create a public gradio.live link (off by default; never on a Space).
        auth: (user, password) required to open the page, or None.
        upload_folder: Root folder for per-conversation upload folders ("": `data_dir/uploads`,
            where a restart or another replica sharing the data folder finds them).
        session_idle_s: Evict a conversation's agent after this many idle seconds.
        session_grace_s: Keep a closed page's agent this long, so a reload finds it.
        max_sessions: Most live agents at once; the least recently used idle one is evicted.
        stream_outputs: Stream model tokens into the running step.
        data_dir: The data folder: the SQLite conversation database and memory images.
        database_url: A SQLAlchemy URL (e.g. `postgresql+psycopg://...`) instead of SQLite.
        retention_days: Delete conversations untouched for this many days (0: keep forever).
        small_model: Use the small-model profile (short prompt, grammar, token cap): True,
            False, or None to choose it for tiny models such as the offline default.
        auth_mode: Sign-in: "none" (each browser owns its conversations), "password" (a
            login page; users from `users`) or "hf" (Sign in with Hugging Face, on a Space).
        users: A file of `name:bcrypt-hash` lines, or the lines themselves (password mode).
        admins: User names that may see everyone's usage.
        trust_proxy: Take the client's address from `X-Forwarded-For` (behind a proxy such
            as a Space's), for the per-address limits of anonymous visitors.
        trusted_proxies: How many proxies in front of the app append to `X-Forwarded-For`
            with `trust_proxy` (1 on a Space); the client is that many entries from the right.
        proxy_peers: With `trust_proxy`: the peers the nearest proxy connects from, whose
            `X-Forwarded-For` is believed (addresses, CIDR networks, host names such as a
            compose service, or `*` for any peer); from any other peer the header is ignored.
            Default: this machine (`smolui.auth.proxy_peers.LOOPBACK`).
        require_sign_in: Only signed-in visitors may call the model: None (when a sign-in
            mode is set), True, or False (in `hf` mode, visitors who did not sign in chat too).
        turns_per_hour: Turns each user may start per hour (0: no limit).
        turns_per_day: Turns each user may start per day (0: no limit).
        tokens_per_day: Model tokens each user may use per day (0: no limit).
        upload_mb_per_day: Megabytes each user may upload per day (0: no limit).
        user_concurrency: Turns one user may run at once (0: no limit).
        queue_size: Turns that may wait for a free slot once `concurrency` turns run; more
            are refused with a "try again" message.
        mcp: Also serve the agent as MCP tools at `/gradio_api/mcp/` (streamable HTTP).
        mcp_servers: MCP servers whose tools every agent gets: a YAML/JSON file's path, or
            the JSON itself ("": none; see `tools.mcp_config`).
        find_local_servers: Look for model servers on loopback (Ollama, llama-server, LM
            Studio, vLLM) at start and offer their models in the picker: True, False, or None
            to look only with the default model (`settings_from_args` makes it False when a
            model is given, by flag or environment).
        local_server_ports: The loopback ports to look on, comma-separated ("": the usual ones,
            `agents.models.local_servers.USUAL_PORTS`).
        docker_base_image: With `executor="docker"`: the image the kernel image is built on
            ("": `python:3.11-slim`; where no registry is reachable, a local Debian image).
        docker_pip_cert: With `executor="docker"`: a CA bundle on this machine that pip
            trusts while the kernel image is built, where a proxy re-signs TLS ("": none).
        owner_quota_mb: Most megabytes one owner keeps on the server (uploads and the files
            the agent's code wrote); a turn's files past it are not stored (0: no quota).
        approve: What the app's agents ask a person about before running it: "never",
            "code", "tools", "all", or comma-separated tool names (`smolui.approvals`); the
            default of every conversation, each may switch it on or off in the page.
        approval_timeout: Seconds a turn waits for an approval before it ends with nothing
            run (0: as long as it takes).
        approve_required: Every conversation asks before running; its switch is shown on
            and cannot be turned off.
        sharing: Read-only share links: "off" (none), "signed-in" (only visitors signed in
            to the app may open one) or "public" (anyone holding the link).
        chat_window: Messages the page's chat holds at once; earlier ones stay on the
            server until the person asks for them (0: the page holds the whole chat).
    """

    model: str = "local"
    models: tuple[str, ...] = ()
    agent_type: str = "code"
    tools: tuple[str, ...] = ()
    executor: str = "sandbox"
    executor_url: str | None = None
    sandbox_memory_mb: int = 1024
    host: str = "127.0.0.1"
    port: int = 7860
    concurrency: int = 4
    # One limit for a file: gradio's own check (its toast), the upload checks and the README.
    max_file_size_mb: float = UploadPolicy.max_file_bytes / MB
    max_files: int = 10
    max_steps: int = 10
    planning_interval: int | None = None
    share: bool = False
    auth: tuple[str, str] | None = field(default=None, repr=False)
    upload_folder: str = ""
    session_idle_s: float = 1800.0
    session_grace_s: float = 300.0
    max_sessions: int = 32
    stream_outputs: bool = True
    data_dir: str = "data"
    database_url: str | None = field(default=None, repr=False)  # may hold a password
    retention_days: float = 0.0
    small_model: bool | None = None
    auth_mode: str = "none"
    users: str | None = field(default=None, repr=False)  # may hold password hashes
    admins: tuple[str, ...] = ()
    trust_proxy: bool = False
    trusted_proxies: int = 1
    proxy_peers: tuple[str, ...] = ("127.0.0.0/8", "::1")  # proxy_peers.LOOPBACK
    require_sign_in: bool | None = None
    turns_per_hour: int = 0
    turns_per_day: int = 0
    tokens_per_day: int = 0
    upload_mb_per_day: float = 0.0
    user_concurrency: int = 1
    queue_size: int = 16
    mcp: bool = False
    mcp_servers: str = field(default="", repr=False)  # inline JSON may name secrets' variables
    find_local_servers: bool | None = None
    local_server_ports: str = ""
    docker_base_image: str = ""
    docker_pip_cert: str = ""
    owner_quota_mb: float = 500.0
    approve: str = "never"
    approval_timeout: float = 0.0
    approve_required: bool = False
    sharing: str = "off"
    chat_window: int = 20  # `smolui.render.chat_window.CHAT_WINDOW`

    def with_changes(self, **changes: Any) -> Settings:
        """A copy with some fields changed.

        Args:
            **changes: Field names and their new values.
        """
        return replace(self, **changes)


# flag -> (environment variable, help). The flag's type comes from the Settings field.
_FLAGS: dict[str, tuple[str, str]] = {
    "model": ("SMOLUI_MODEL", "model string: 'local' (offline SmolLM2 via llama.cpp), "
              "'hf:<model id>', 'openai:<model>@<base url>', ... (all forms below)"),
    "models": ("SMOLUI_MODELS", "comma-separated model strings (as --model) a visitor may pick "
               "for a new conversation, e.g. local,scripted:demo,openai:gpt-4o-mini"),
    "agent_type": ("SMOLUI_AGENT_TYPE", "'code' (writes Python) or 'tool_calling' (JSON tool calls)"),
    "tools": ("SMOLUI_TOOLS", "comma-separated extra tools for each agent: web_search, "
              "visit_webpage, transcriber, python_interpreter (document tools are always on)"),
    "executor": ("SMOLUI_EXECUTOR", "'sandbox' (confined worker process), 'local' (in-process), "
                 "'jupyter' (a Jupyter gateway, see --executor-url), 'docker', 'e2b' or 'modal'"),
    "executor_url": ("SMOLUI_EXECUTOR_URL", "Jupyter Kernel/Enterprise Gateway URL for --executor "
                     "jupyter, e.g. http://127.0.0.1:8888 (token: env SMOLUI_EXECUTOR_TOKEN)"),
    "host": ("GRADIO_SERVER_NAME", "interface to bind; Spaces sets 0.0.0.0"),
    "port": ("GRADIO_SERVER_PORT", "TCP port"),
    "sandbox_memory_mb": ("SMOLUI_SANDBOX_MEMORY_MB", "memory each sandbox worker may use, in MB"),
    "concurrency": ("SMOLUI_CONCURRENCY", "turns that may run at once across all sessions"),
    "max_file_size_mb": ("SMOLUI_MAX_FILE_SIZE_MB", "largest accepted upload, in MB"),
    "max_files": ("SMOLUI_MAX_FILES", "most files per message"),
    "max_steps": ("SMOLUI_MAX_STEPS", "steps per turn before the agent must answer"),
    "planning_interval": ("SMOLUI_PLANNING_INTERVAL", "plan every N steps (0: never)"),
    "upload_folder": ("SMOLUI_UPLOAD_FOLDER", "root of the per-conversation upload folders "
                      "(default: the data folder's uploads/)"),
    "session_idle_s": ("SMOLUI_SESSION_IDLE_S", "evict an idle conversation's agent after N seconds"),
    "session_grace_s": ("SMOLUI_SESSION_GRACE_S", "keep a closed page's agent N seconds for a reload"),
    "max_sessions": ("SMOLUI_MAX_SESSIONS", "most live agents at once"),
    "data_dir": ("SMOLUI_DATA_DIR", "data folder: the SQLite conversation database and files"),
    "database_url": ("SMOLUI_DATABASE_URL", "conversation database URL instead of SQLite, e.g. "
                     "postgresql+psycopg://user:password@host/db (several replicas share one)"),
    "retention_days": ("SMOLUI_RETENTION_DAYS", "delete conversations untouched for N days (0: never)"),
    "users": ("SMOLUI_USERS", "password sign-in users: a file of 'name:bcrypt-hash' lines, or the "
              "lines themselves (python -m smolui.auth.passwords NAME prints one)"),
    "admins": ("SMOLUI_ADMINS", "comma-separated user names that may see everyone's usage"),
    "turns_per_hour": ("SMOLUI_TURNS_PER_HOUR", "turns each user may start per hour (0: no limit)"),
    "turns_per_day": ("SMOLUI_TURNS_PER_DAY", "turns each user may start per day (0: no limit)"),
    "tokens_per_day": ("SMOLUI_TOKENS_PER_DAY", "model tokens each user may use per day (0: no limit)"),
    "upload_mb_per_day": ("SMOLUI_UPLOAD_MB_PER_DAY", "MB each user may upload per day (0: no limit)"),
    "user_concurrency": ("SMOLUI_USER_CONCURRENCY", "turns one user may run at once (0: no limit)"),
    "queue_size": ("SMOLUI_QUEUE_SIZE", "turns that may wait for a free slot when all are busy"),
    "trusted_proxies": ("SMOLUI_TRUSTED_PROXIES", "with --trust-proxy: how many proxies append "
                        "to X-Forwarded-For (the client is that many entries from the right)"),
    "proxy_peers": ("SMOLUI_PROXY_PEERS", "with --trust-proxy: comma-separated addresses, "
                    "networks or host names the proxy connects from; X-Forwarded-For from "
                    "any other peer is ignored ('*': any peer, only where nothing else can "
                    "reach the app's port)"),
    "mcp_servers": ("SMOLUI_MCP_SERVERS", "MCP servers whose tools every agent gets: a tools.yaml "
                    "(or .json) path, or the JSON itself (see README, 'Other ways in')"),
    "local_server_ports": ("SMOLUI_LOCAL_SERVER_PORTS", "loopback ports where --find-local-servers "
                           "looks for model servers (default: 11434,8080,1234,8000)"),
    "docker_base_image": ("SMOLUI_DOCKER_BASE_IMAGE", "with --executor docker: the base image "
                          "the kernel image is built on (default python:3.11-slim)"),
    "docker_pip_cert": ("SMOLUI_DOCKER_PIP_CERT", "with --executor docker: a CA bundle file pip "
                        "trusts while building the kernel image (behind a TLS-re-signing proxy)"),
    "owner_quota_mb": ("SMOLUI_OWNER_QUOTA_MB", "MB one owner keeps on the server (uploads and "
                       "files the agent wrote; 0: no quota)"),
    "approve": ("SMOLUI_APPROVE", "ask a person before running: never, code (every code block), "
                "tools (tools marked requires_approval), all, or comma-separated tool names; "
                "each conversation can switch it on or off in the page"),
    "approval_timeout": ("SMOLUI_APPROVAL_TIMEOUT_S", "seconds a turn waits for an approval "
                         "before it ends with nothing run (0: as long as it takes)"),
    "sharing": ("SMOLUI_SHARING", "read-only share links: off, signed-in (only signed-in "
                "visitors may open one) or public (anyone holding the link)"),
    "chat_window": ("SMOLUI_CHAT_WINDOW", "messages the page's chat holds; earlier ones load "
                    "on demand with 'Earlier messages' (0: the whole chat)"),
}  # fmt: skip

_BOOL_FLAGS: dict[str, tuple[str, str]] = {
    "share": ("SMOLUI_SHARE", "create a public gradio.live link (off by default)"),
    "stream_outputs": ("SMOLUI_STREAM_OUTPUTS", "stream model tokens into the running step"),
    "small_model": ("SMOLUI_SMALL_MODEL", "short prompt, grammar and token cap for a tiny model "
                    "(None: on for tiny models such as the offline SmolLM2)"),
    "trust_proxy": ("SMOLUI_TRUST_PROXY", "take client addresses from X-Forwarded-For (behind a "
                    "proxy, e.g. on a Space)"),
    "require_sign_in": ("SMOLUI_REQUIRE_SIGN_IN", "only signed-in visitors may call the model "
                        "(None: when SMOLUI_AUTH is set; 0 with hf: anyone, limited per address)"),
    "approve_required": ("SMOLUI_APPROVE_REQUIRED", "every conversation asks before running "
                         "(its switch cannot turn that off; what is held: --approve, or all)"),
    "mcp": ("SMOLUI_MCP", "also serve the agent as MCP tools at /gradio_api/mcp/ (streamable "
            "HTTP; same API keys and limits as /v1)"),
    "find_local_servers": ("SMOLUI_FIND_LOCAL_SERVERS", "offer the models of Ollama and "
                           "OpenAI-compatible servers found on loopback in the model picker "
                           "(None: when no --model / SMOLUI_MODEL is given)"),
}  # fmt: skip


def build_parser() -> argparse.ArgumentParser:
    """The `app.py` command line. Every flag also reads an environment variable."""
    parser = argparse.ArgumentParser(
        prog="app.py",
        description="smolui: a chat app where an agent writes and runs Python to answer you. "
        "Every flag can also be set through the environment variable named in its help; "
        "flags win. Secrets (HF_TOKEN, OPENAI_API_KEY, ...) are read from the environment only.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=_epilog(),
    )
    defaults = asdict(Settings())
    for name, (env, text) in _FLAGS.items():
        default = defaults[name]
        if isinstance(default, tuple):
            default = ",".join(default)
        parser.add_argument(
            "--" + name.replace("_", "-"), dest=name, default=None,
            help=f"{text} [env {env}; default {default!r}]",
        )  # fmt: skip
    for name, (env, text) in _BOOL_FLAGS.items():
        parser.add_argument(
            "--" + name.replace("_", "-"), dest=name, default=None,
            action=argparse.BooleanOptionalAction,
            help=f"{text} [env {env}=1/0; default {defaults[name]}]",
        )  # fmt: skip
    parser.add_argument(
        "--auth",
        default=None,
        help="sign-in: 'none', 'password' (users from --users) or 'hf' (Sign in with Hugging "
        "Face, on a Space); or one 'user:password' [env SMOLUI_AUTH; default 'none']",
    )
    return parser


def _epilog() -> str:
    from agents.models.spec import SPEC_FORMS

    return (
        f"model (--model / SMOLUI_MODEL), {SPEC_FORMS}\n\n"
        "secrets, read from the environment only: HF_TOKEN (Hugging Face), OPENAI_API_KEY, "
        "ANTHROPIC_API_KEY and other provider keys; SMOLUI_EXECUTOR_TOKEN (Jupyter gateway), "
        "E2B_API_KEY, MODAL_TOKEN_ID and MODAL_TOKEN_SECRET for remote code executors.\n"
        "examples:\n"
        "  python app.py                                  # offline, SmolLM2 via llama.cpp\n"
        "  python app.py --model hf:Qwen/Qwen2.5-Coder-32B-Instruct   # needs HF_TOKEN\n"
        "  python app.py --model openai:my-model@http://127.0.0.1:8080/v1 --concurrency 8"
    )


def settings_from_args(
    argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None
) -> Settings:
    """Read CLI flags, then the environment, into `Settings`.

    Args:
        argv: Command-line arguments without the program name (default: `sys.argv[1:]`).
        environ: Environment to read (default: `os.environ`).

    Raises:
        SystemExit: On an invalid flag or value (argparse prints the usage).
    """
    parser = build_parser()
    args = vars(parser.parse_args(argv))
    env = os.environ if environ is None else environ
    values: dict[str, Any] = {}
    defaults = asdict(Settings())
    for name, (var, _) in {**_FLAGS, **_BOOL_FLAGS}.items():
        raw = args.get(name)
        if raw is None:
            raw = env.get(var) or None
        if raw is None:
            continue
        try:
            values[name] = _convert(name, raw, defaults[name])
        except ValueError as error:
            parser.error(f"--{name.replace('_', '-')}: {error}")
    auth = args.get("auth") or env.get("SMOLUI_AUTH")
    if auth and auth.strip().lower() in ("none", "password", "hf"):
        values["auth_mode"] = auth.strip().lower()
    elif auth:
        try:
            from smolui.auth.single_user import single_user

            values["auth"] = single_user(auth)
        except ValueError as error:
            parser.error(f"--auth / SMOLUI_AUTH: {error}")
    if "model" in values:
        # A model given means the operator chose: nothing is looked for on this machine.
        values.setdefault("find_local_servers", False)
    settings = Settings(**values)
    from smolui.app.settings_checks import validate

    problem = validate(settings)
    if problem:
        parser.error(problem)
    return settings


def _convert(name: str, raw: Any, default: Any) -> Any:
    if isinstance(raw, bool):
        return raw
    text = str(raw).strip()
    if isinstance(default, bool) or name in _BOOL_FLAGS:
        if text.lower() in ("1", "true", "yes", "on"):
            return True
        if text.lower() in ("0", "false", "no", "off"):
            return False
        raise ValueError(f"expected a boolean, got {text!r}")
    if isinstance(default, tuple):
        return tuple(part.strip() for part in text.split(",") if part.strip())
    if name == "planning_interval":
        number = int(text)
        return number if number > 0 else None
    if isinstance(default, int):
        return int(text)
    if isinstance(default, float):
        return float(text)
    return text
