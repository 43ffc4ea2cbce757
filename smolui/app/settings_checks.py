"""What is wrong with a `Settings`, in words the operator can act on: checked at start, so a
bad value is refused before the first page instead of at the first turn."""

from __future__ import annotations

import dataclasses
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # settings.py calls `validate`: the class is only named here
    from smolui.app.settings import Settings

SHARING_MODES = ("off", "signed-in", "public")  # `SMOLUI_SHARING`, see smolui.api.share_routes


def validate(settings: Settings) -> str | None:
    """Say what is wrong with `settings`, or None when they are usable.

    Args:
        settings: The settings to check.
    """
    from agents.models.spec import spec_problem

    chosen = [] if settings.model in (None, "local", "default") else [("--model", settings.model)]
    for flag, spec in chosen + [("--models", spec) for spec in settings.models]:
        problem = spec_problem(spec)
        if problem:  # refused at start, not at the first turn
            return f"{flag}: {problem} (`python app.py --help` lists the valid forms)"
    from agents.models.local_servers import parse_ports

    try:
        parse_ports(settings.local_server_ports)
    except ValueError as error:
        return f"--local-server-ports: {error}"
    from smolui.approvals import approve_problem

    if approve_problem(settings.approve):
        return approve_problem(settings.approve)
    if settings.approval_timeout < 0:
        return f"approval timeout must be 0 (none) or more seconds, not {settings.approval_timeout}"
    if settings.sharing not in SHARING_MODES:
        return f"sharing must be one of {', '.join(SHARING_MODES)}, not {settings.sharing!r}"
    if settings.sharing == "signed-in" and settings.auth_mode == "none" and settings.auth is None:
        return "SMOLUI_SHARING=signed-in needs sign-in (SMOLUI_AUTH=password or hf)"
    if settings.agent_type not in ("code", "tool_calling"):
        return f"agent type must be 'code' or 'tool_calling', not {settings.agent_type!r}"
    from agents.executors import EXECUTOR_TYPES

    if settings.executor not in EXECUTOR_TYPES:
        return f"executor must be one of {', '.join(EXECUTOR_TYPES)}, not {settings.executor!r}"
    if settings.executor == "jupyter" and not settings.executor_url:
        return "--executor jupyter needs --executor-url (or SMOLUI_EXECUTOR_URL)"
    problem = _docker_problem(settings)
    if problem:
        return problem
    from smolui.auth.proxy_peers import peers_problem

    problem = peers_problem(settings.proxy_peers)
    if problem:
        return problem
    if settings.proxy_peers != _default(settings, "proxy_peers") and not settings.trust_proxy:
        return "--proxy-peers applies with --trust-proxy (SMOLUI_TRUST_PROXY=1) only"
    if settings.chat_window < 0:
        return f"chat window must be 0 (the whole chat) or more, not {settings.chat_window}"
    if settings.owner_quota_mb < 0:
        return f"owner_quota_mb must be 0 (no quota) or more, not {settings.owner_quota_mb}"
    if not 0 < settings.port < 65536:
        return f"port must be between 1 and 65535, not {settings.port}"
    positive = {
        "concurrency": settings.concurrency,
        "max_files": settings.max_files,
        "max_steps": settings.max_steps,
        "max_sessions": settings.max_sessions,
        "max_file_size_mb": settings.max_file_size_mb,
    }
    for name, value in positive.items():
        if value <= 0:
            return f"{name.replace('_', ' ')} must be positive"
    if settings.sandbox_memory_mb < 64:
        return "sandbox memory must be at least 64 MB"
    if settings.retention_days < 0:
        return "retention days must not be negative (0 keeps conversations forever)"
    if settings.session_idle_s <= 0 or settings.session_grace_s < 0:
        return "session idle time must be positive and grace time not negative"
    return _limits_problem(settings)


def _docker_problem(settings: Settings) -> str | None:
    """What is wrong with the Docker executor's settings, or None (the engine itself is
    asked at start: `smolui.app.docker_engine`)."""
    given = {"--docker-base-image": settings.docker_base_image,
             "--docker-pip-cert": settings.docker_pip_cert}  # fmt: skip
    for flag, value in given.items():
        if value and settings.executor != "docker":
            return f"{flag} applies to --executor docker only, not {settings.executor!r}"
    if settings.docker_pip_cert and not os.path.isfile(settings.docker_pip_cert):
        return f"--docker-pip-cert: {settings.docker_pip_cert!r} is not a file (a CA bundle)"
    return None


def _limits_problem(settings: Settings) -> str | None:
    """What is wrong with the sign-in and per-user limit settings, or None."""
    from smolui.auth import AuthConfig

    problem = AuthConfig.from_settings(settings).problem()
    if problem:
        return problem
    limits = {
        "turns_per_hour": settings.turns_per_hour,
        "turns_per_day": settings.turns_per_day,
        "tokens_per_day": settings.tokens_per_day,
        "upload_mb_per_day": settings.upload_mb_per_day,
        "user_concurrency": settings.user_concurrency,
        "queue_size": settings.queue_size,
        "trusted_proxies": settings.trusted_proxies,
    }
    for name, value in limits.items():
        if value < 0:
            return f"{name.replace('_', ' ')} must not be negative (0: no limit)"
    return None


def _default(settings: Settings, name: str) -> object:
    """The default of one of the settings (what it is when nobody set it)."""
    return next(field.default for field in dataclasses.fields(settings) if field.name == name)


__all__ = ["validate"]
