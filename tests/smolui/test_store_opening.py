"""The conversation store opens once the chat serves, not while the app is built: building
leaves SQLAlchemy unimported, the first use opens it, and `python app.py` still exits with
the reason when the database cannot be reached."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# A fresh interpreter: the test process has imported SQLAlchemy already.
PROBE = """
import json, sys
from smolui.app.gradio_ui import GradioUI
from smolui.app.settings import Settings

data = sys.argv[1]
limits = {"turns_per_day": 5} if "--limits" in sys.argv else {}
settings = Settings(model="scripted", executor="local", data_dir=data, **limits)
ui = GradioUI(lambda: None, settings=settings, model_label=lambda: "scripted")
ui.create_app()
report = {"built": "sqlalchemy" in sys.modules}
report["listed"] = ui.keeper.list("someone")  # the first use opens it
report["after"] = "sqlalchemy" in sys.modules
ui.close()
print(json.dumps(report))
"""


def probe(data: Path, *args: str) -> dict:
    done = subprocess.run([sys.executable, "-c", PROBE, str(data), *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=180)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_building_the_app_leaves_the_store_for_its_first_use(tmp_path):
    report = probe(tmp_path / "data")
    assert report == {"built": False, "listed": [], "after": True}
    assert (tmp_path / "data" / "smolui.db").is_file()


def test_usage_limits_open_the_store_with_the_app(tmp_path):
    assert probe(tmp_path / "data", "--limits")["built"] is True


@pytest.mark.slow  # starts app.py (gradio) in its own process
def test_app_py_exits_with_the_reason_when_the_database_cannot_be_reached(tmp_path):
    from tests.postgres import _free_port

    port, closed = _free_port(), _free_port()
    url = f"postgresql+psycopg://app:hunter2@127.0.0.1:{closed}/smolui"
    env = dict(os.environ, GRADIO_ANALYTICS_ENABLED="False", SMOLUI_LOG_LEVEL="WARNING",
               SMOLUI_DATABASE_URL=url)  # fmt: skip
    options = ["--model", "scripted:hello", "--port", str(port), "--data-dir",
               str(tmp_path / "data"), "--upload-folder", str(tmp_path / "uploads")]  # fmt: skip
    done = subprocess.run([sys.executable, "app.py", *options], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=180)  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert "smolui: cannot reach the conversation database" in done.stderr
    assert "hunter2" not in done.stderr and "Traceback" not in done.stderr
