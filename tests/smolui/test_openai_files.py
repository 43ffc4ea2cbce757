"""Files in `/v1` requests, sent by the official `openai` client to the running app on
loopback: images as `data:` URLs and files as base64 become the turn's attachments as the
page's uploads do; bad files are `invalid_request_error`s; the daily upload limit counts them."""

from __future__ import annotations

import base64
import io
from pathlib import Path

import openai
import pytest

from smolui.api.request_files import FOLDER_PREFIX
from smolui.auth import Identity
from smolui.turns.pending import PendingTurn
from tests.samples import write_pdf, write_xlsx
from tests.smolui.api_app import make_key, served_app

XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
MAX_FILE_MB = 0.5
UPLOAD_MB_PER_DAY = 1.0


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    folder = tmp_path_factory.mktemp("openai-files")
    cache = folder / "gradio-cache"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GRADIO_TEMP_DIR", str(cache))  # where the page's uploads land
        with served_app(folder, max_files=3, max_file_size_mb=MAX_FILE_MB,
                        upload_mb_per_day=UPLOAD_MB_PER_DAY) as (ui, base):  # fmt: skip
            yield ui, base, folder, cache


@pytest.fixture(scope="module")
def carol(app) -> str:
    return make_key(app[2], "carol")


def client(base: str, key: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=base + "v1", api_key=key, max_retries=0, timeout=120)


def data_url(data: bytes, kind: str) -> str:
    return f"data:{kind};base64,{base64.b64encode(data).decode()}"


def png_bytes() -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (32, 24), (200, 30, 30)).save(out, format="PNG")
    return out.getvalue()


def samples(folder: Path) -> tuple[bytes, bytes]:
    pdf = write_pdf(folder / "report.pdf", ["Quarterly report\nRevenue grew by 12 percent"])
    xlsx = write_xlsx(folder / "sales.xlsx", [["region", "sales"], ["north", 10], ["south", 32]])
    return pdf.read_bytes(), xlsx.read_bytes()


def test_a_pdf_and_an_xlsx_become_the_turn_s_attachments(app, tmp_path):
    ui, base, folder, cache = app
    pdf, xlsx = samples(tmp_path)
    api = client(base, make_key(folder, "alice"))
    content = [
        {"type": "text", "text": "Sum the sales and say what the report is about."},
        {"type": "file", "file": {"filename": "report.pdf",
                                  "file_data": data_url(pdf, "application/pdf")}},
        {"type": "file", "file": {"filename": "sales.xlsx",  # bare base64, as some clients send
                                  "file_data": base64.b64encode(xlsx).decode()}},
    ]  # fmt: skip
    reply = api.chat.completions.create(
        model="smolui", messages=[{"role": "user", "content": content}]
    )
    message = reply.choices[0].message
    assert message.content == "42"  # the notes on the files are reasoning, not the answer
    reasoning = message.model_extra["reasoning_content"]
    assert "Attached report.pdf (PDF" in reasoning and "Attached sales.xlsx (Excel" in reasoning
    conversation = reply.model_extra["conversation_id"]
    session = ui.registry.get(conversation)
    task = session.agent.memory.steps[0].task  # the agent's note on the files, as the page's
    assert "report.pdf" in task and "Revenue grew by 12 percent" in task and "sales.xlsx" in task
    assert sorted(p.name for p in session.upload_dir.iterdir()) == ["report.pdf", "sales.xlsx"]
    chat = ui.keeper.chat(ui.keeper.find("api:alice", conversation))
    shown = [m["content"] for m in chat if m["role"] == "user"]  # as the page shows a message
    assert [Path(item["path"]).name for item in shown[:2]] == ["report.pdf", "sales.xlsx"]
    assert all(Path(item["path"]).parent.parent == cache for item in shown[:2])
    assert shown[2] == content[0]["text"]


def test_an_image_streams_its_note_before_the_steps_and_reaches_the_model(app):
    ui, base, folder, _ = app
    api = client(base, make_key(folder, "bob"))
    content = [{"type": "image_url", "image_url": {"url": data_url(png_bytes(), "image/png")}}]
    stream = api.chat.completions.create(
        model="smolui", messages=[{"role": "user", "content": content}], stream=True
    )
    reasoning, answer, conversation = "", "", None
    for chunk in stream:
        conversation = chunk.model_extra["conversation_id"]
        delta = chunk.choices[0].delta
        reasoning += (delta.model_extra or {}).get("reasoning_content") or ""
        answer += delta.content or ""
    assert answer == "42"
    assert reasoning.index("Attached image-1.png (PNG image, 32 × 24 pixels") < reasoning.index(
        "Step 1"
    )
    step = ui.registry.get(conversation).agent.memory.steps[0]
    assert len(step.task_images) == 1 and step.task_images[0].size == (32, 24)


@pytest.mark.parametrize(
    ("part", "says"),
    [
        ({"type": "image_url", "image_url": {"url": "https://example.com/cat.png"}},
         "image 1 is an http(s) URL, which this server does not fetch"),
        ({"type": "image_url", "image_url": {"url": "data:image/png;base64,@@@"}},
         "image 1 is not valid base64"),
        ({"type": "file", "file": {"filename": "notes.pdf",
                                   "file_data": data_url(b"just text", "application/pdf")}},
         "file 1 (notes.pdf) is refused: the content is not a PDF"),
        ({"type": "file", "file": {"filename": "tool.exe",
                                   "file_data": data_url(b"MZ\x90\x00", "application/x-dos")}},
         "file 1 (tool.exe) is refused: .exe files are not accepted"),
        ({"type": "file", "file": {"filename": "big.txt",
                                   "file_data": data_url(b"a" * 600_000, "text/plain")}},
         "file 1 is 586 KB, over the limit of 512 KB per file"),
        ({"type": "file", "file": {"file_id": "file-abc"}},
         "names an uploaded file ('file_id'), which this server does not keep"),
        ({"type": "input_audio", "input_audio": {"data": "AAAA", "format": "wav"}},
         "Content part 1 is of type 'input_audio', which this app does not take"),
    ],
)  # fmt: skip
def test_a_bad_file_is_an_invalid_request_and_nothing_is_kept(app, carol, part, says):
    ui, base, _, cache = app
    api = client(base, carol)
    before = set(cache.glob(f"{FOLDER_PREFIX}*"))
    with pytest.raises(openai.BadRequestError) as refused:
        api.chat.completions.create(
            model="smolui",
            messages=[{"role": "user", "content": [{"type": "text", "text": "Read it"}, part]}],
        )
    assert refused.value.body["type"] == "invalid_request_error"
    assert says in refused.value.body["message"]
    assert set(cache.glob(f"{FOLDER_PREFIX}*")) == before  # nothing written is left behind
    assert ui.keeper.list("api:carol") == []  # no turn began


def test_more_files_than_a_message_takes_are_refused(app):
    _, base, folder, _ = app
    api = client(base, make_key(folder, "dave"))
    image = {"type": "image_url", "image_url": {"url": data_url(png_bytes(), "image/png")}}
    with pytest.raises(openai.BadRequestError, match="At most 3 files can be attached"):
        api.chat.completions.create(
            model="smolui", messages=[{"role": "user", "content": [image] * 4}]
        )


def test_the_daily_upload_limit_counts_api_files_with_the_page_s_message(app):
    ui, base, folder, _ = app
    api = client(base, make_key(folder, "erin"))
    text = (b"line of notes\n" * 30_000)[:400_000]
    part = {"type": "file", "file": {"filename": "notes.txt",
                                     "file_data": data_url(text, "text/plain")}}  # fmt: skip
    message = [{"role": "user", "content": [{"type": "text", "text": "Read it"}, part]}]
    for _ in range(2):  # 800 KB of the day's 1 MB
        assert api.chat.completions.create(model="smolui", messages=message).choices
    sent = folder / "notes.txt"
    sent.write_bytes(text)
    identity = Identity(provider="api", name="erin", client="127.0.0.1")
    page_says = ui.admission.enter(identity, "api:erin", PendingTurn.message("Hi", [str(sent)]))
    assert isinstance(page_says, str) and "MB of uploads" in page_says
    with pytest.raises(openai.RateLimitError) as refused:
        api.chat.completions.create(model="smolui", messages=message)
    assert refused.value.body["message"] == page_says
