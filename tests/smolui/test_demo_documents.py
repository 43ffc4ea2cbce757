"""The scripted demo model with an attached document (issue 31): it opens the document the
upload note lists instead of plotting squares, and says plainly that it cannot summarize."""

from __future__ import annotations

from agents.models.scripted_demo import demo_model
from smolui.ui.layout import SAMPLE_DATA, SAMPLE_DOCUMENT
from smolui.uploads.describe import agent_note
from smolui.uploads.ingest import ingest


def _task(tmp_path, *paths) -> list[dict]:
    result = ingest([(p.name, str(p)) for p in paths], tmp_path / "conversation")
    note = agent_note(result, images_to_model=False)
    return [{"role": "user", "content": note + "\n\nSummarize the attached report."}]


def test_an_attached_report_is_opened_not_answered_with_squares(tmp_path):
    messages = _task(tmp_path, SAMPLE_DOCUMENT)
    demo = demo_model(delay=0)
    first = demo.generate(messages).content
    stored = tmp_path / "conversation"
    assert "read_document(" in first and str(stored) in first
    assert "name = 'greenhouse_report.pdf'" in first
    assert "squares" not in first
    second = demo.generate(messages).content
    assert "cannot summarize" in second and "squares" not in second


def test_a_table_wins_over_a_document_and_no_file_plots_squares(tmp_path):
    messages = _task(tmp_path, SAMPLE_DOCUMENT, SAMPLE_DATA)
    assert "pd.read_csv(" in demo_model(delay=0).generate(messages).content
    plain = [{"role": "user", "content": "Show me what you can do."}]
    assert "squares" in demo_model(delay=0).generate(plain).content
