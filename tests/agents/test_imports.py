"""Importing the packages is light: no heavy libraries, no I/O."""

from __future__ import annotations

import subprocess
import sys

HEAVY = [
    "torch",
    "transformers",
    "litellm",
    "gradio",
    "llama_cpp",
    "openai",
    "huggingface_hub",
    "PIL",
    "mcp",
    "opentelemetry",
    "prometheus_client",
]


def test_import_is_light_and_does_no_io(tmp_path):
    probe = (
        "import sys, builtins, socket\n"
        "opened = []\n"
        "real_open = builtins.open\n"
        "def spy(file, mode='r', *a, **k):\n"
        "    if any(c in mode for c in 'wax+'): opened.append(file)\n"
        "    return real_open(file, mode, *a, **k)\n"
        "builtins.open = spy\n"
        "def no_net(*a, **k): raise SystemExit('network at import')\n"
        "socket.socket.connect = no_net\n"
        "import agents, tools, smolui\n"
        f"heavy = [m for m in {HEAVY!r} if m in sys.modules]\n"
        "print('HEAVY', heavy); print('WRITES', opened)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={
            "PYTHONPATH": str(__import__("pathlib").Path(__file__).resolve().parents[2]),
            "PATH": "/usr/bin:/bin",
        },
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert "HEAVY []" in result.stdout
    assert "WRITES []" in result.stdout
    assert list(tmp_path.iterdir()) == []
