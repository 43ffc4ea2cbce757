"""The first screen's words, notes kept out of the chat, the checks on attach, and exports that
stand alone (issue 31), without a browser."""

from __future__ import annotations

import base64
import io
from pathlib import Path

from agents.memory.steps import ActionStep, Timing
from agents.small_model.vote import VOTE_NOTE_START
from smolui.render.attachments import attachment_checks
from smolui.render.export import to_json, to_markdown, without_server_paths
from smolui.render.messages import render_action_step
from smolui.render.panel import (
    ABOUT_SERVER,
    DEMO_LINE,
    TINY_LINE,
    capability_line,
    side_panel,
)
from smolui.render.step_summary import step_summary
from smolui.ui.layout import header_text
from smolui.ui.wiring import no_match
from smolui.uploads import UploadPolicy, ingest

TERMINAL_LOG = (
    b"\x1b]0;me@box: ~\x07\x1b[01;32mme@box\x1b[00m:~$ ls\r\n"
    b"progress \xe2\x96\x88\xe2\x96\x88 100%\x1b[K\x08\r\n"
) * 20 + b"\xe2\x96"


def test_the_model_line_is_plain_words_for_each_kind_of_model():
    assert capability_line("scripted:demo") == DEMO_LINE
    assert capability_line("local") == TINY_LINE
    assert capability_line("SmolLM2-135M-Instruct-Q8_0.gguf") == TINY_LINE
    assert capability_line("gpt-4o-mini") == "Model: gpt-4o-mini"
    header = header_text("smolui", lambda: DEMO_LINE)
    assert header.startswith("# smolui\n") and header.count("\n# ") == 0, "one h1"
    assert header.endswith(f"**{DEMO_LINE}**")


def test_operator_details_come_after_what_users_need_and_are_folded():
    panel = side_panel("scripted:demo", None, "sandbox", 5, [])
    about = panel.index(f"<details><summary>{ABOUT_SERVER}</summary>")
    model = panel.index("**Model:** scripted demo")
    assert model < panel.index("**Now:**") < panel.index("Files in this") < about
    assert DEMO_LINE not in panel, "the header says what the model can do, once"
    for details in ("**Code runs in:**", "**Max steps per message:**", "**Who can see them:**"):
        assert panel.index(details) > about, details
    assert "SMOLUI_MODEL" not in panel and "--model" not in panel, "operator words: the README"
    assert panel.rstrip().endswith("</details>")


def test_a_small_models_drafts_note_stays_out_of_the_chat():
    note = f"{VOTE_NOTE_START}3 written (2 answer 4; 1 failed); draft 1 runs."
    step = ActionStep(
        step_number=1,
        timing=Timing(start_time=0.0, end_time=1.0),
        code_action="print(2 + 2)",
        observations=f"{note}\nExecution logs:\n4\n",
    )
    shown = "\n".join(str(message["content"]) for message in render_action_step(step, "s1"))
    assert "drafts of this step" not in shown and "4" in shown
    assert "printed 1 line" in step_summary(step)


def test_files_are_checked_on_attach_with_the_servers_own_checks(tmp_path: Path):
    renamed = tmp_path / "report.pdf"
    renamed.write_bytes(b"MZ\x90\x00\x03\x00\x00\x00" * 20)
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    log = tmp_path / "session.txt"
    log.write_bytes(TERMINAL_LOG)
    checks = attachment_checks(
        [str(renamed), {"path": str(empty), "orig_name": "empty.txt"}, str(log)], UploadPolicy()
    )
    assert [check["name"] for check in checks] == ["report.pdf", "empty.txt", "session.txt"]
    assert [check["type"] for check in checks] == ["PDF", "TXT", "TXT"]
    assert "Windows program" in checks[0]["refused"]
    assert "empty" in checks[1]["refused"]
    assert checks[2]["refused"] is None and checks[2]["size"].endswith("KB")


def test_a_saved_terminal_log_is_read_as_text(tmp_path: Path):
    log = tmp_path / "session.txt"
    log.write_bytes(TERMINAL_LOG)
    result = ingest([("session.txt", log)], tmp_path / "conversation", UploadPolicy())
    assert not result.refused and result.accepted[0].kind == "text"


def test_a_search_with_no_hit_says_so():
    assert no_match("  zebra ") == "No conversation matches \u201czebra\u201d."


def png(tmp_path: Path) -> Path:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (4, 3), (200, 30, 30)).save(buffer, format="PNG")
    path = tmp_path / "plot.png"
    path.write_bytes(buffer.getvalue())
    return path


def test_a_markdown_export_embeds_images_and_names_no_server_path(tmp_path: Path):
    image = png(tmp_path)
    upload = "/srv/smolui/data/uploads/3f2a9c/sales.csv"
    history = [
        {"role": "user", "content": "Plot it"},
        {"role": "assistant", "content": "", "metadata": {"title": "Step 1", "id": "s1"}},
        {
            "role": "assistant",
            "content": f"```python\ndf = pd.read_csv('{upload}')\n```",
            "metadata": {"title": "Code", "id": "s1.c0", "parent_id": "s1"},
        },
        {"role": "assistant", "content": {"path": str(image), "mime_type": "image/png"}},
        {"role": "assistant", "content": "See https://example.org/a/b.png, 10/20/30."},
    ]
    exported = to_markdown(history)
    encoded = base64.b64encode(image.read_bytes()).decode("ascii")
    assert f"![plot.png](data:image/png;base64,{encoded})" in exported
    assert "read_csv('sales.csv')" in exported
    assert "/srv/" not in exported and str(tmp_path) not in exported
    assert "https://example.org/a/b.png, 10/20/30." in exported, "links and numbers stay"
    assert "/srv/" not in to_json(history)
    assert without_server_paths("open('/tmp/x/y.txt')") == "open('y.txt')"
