"""What makes `python app.py` start lean: gradio's notebook and MCP integrations stay unimported
while the app is built (importable after), and the collector is paused meanwhile."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Runs in a fresh interpreter: the test process may have imported IPython or mcp already.
PROBE = """
import importlib, json, sys
from smolui.app.gradio_import import unused_integrations_hidden

def importable(name):
    try:
        importlib.import_module(name)
        return True
    except ImportError:
        return False

report = {}
with unused_integrations_hidden() as hidden:
    report["hidden"] = hidden
    report["inside"] = {name: importable(name) for name in ("IPython", "mcp", "json")}
    if "--gradio" in sys.argv:
        import gradio
        with gradio.Blocks() as demo:
            gradio.Textbox()
        report["is_colab"] = demo.config["is_colab"]
    report["loaded"] = sorted(name for name in ("IPython", "mcp") if sys.modules.get(name))
report["after"] = {name: importable(name) for name in ("IPython", "mcp")}
print(json.dumps(report))
"""


def probe(*args: str, **env: str) -> dict:
    result = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module", autouse=True)
def integrations_installed():
    for name in ("IPython", "mcp"):
        pytest.importorskip(name)


def test_gradio_builds_without_them_and_they_import_again_after():
    report = probe("--gradio", GRADIO_MCP_SERVER="False")
    assert report["hidden"] == ["IPython", "mcp"]
    assert report["inside"] == {"IPython": False, "mcp": False, "json": True}
    assert report["is_colab"] is False  # gradio's answer outside a notebook, as usual
    assert report["loaded"] == []
    assert report["after"] == {"IPython": True, "mcp": True}


def test_mcp_stays_visible_when_gradio_is_asked_for_its_mcp_server():
    report = probe(GRADIO_MCP_SERVER="true")
    assert report["hidden"] == ["IPython"]
    assert report["inside"] == {"IPython": False, "mcp": True, "json": True}


def test_the_collector_is_paused_while_the_app_is_built_then_what_it_made_is_frozen():
    import app

    before = gc.get_freeze_count()
    try:
        with app.collector_paused():
            assert not gc.isenabled()
            made = [[index] for index in range(1000)]
        assert gc.isenabled()
        assert gc.get_freeze_count() >= before + len(made)
    finally:
        gc.unfreeze()  # the test process keeps collecting everything, as before
