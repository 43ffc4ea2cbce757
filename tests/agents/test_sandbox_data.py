"""Data analysis in the real sandbox: numpy, pandas and matplotlib importable by default,
figures captured as step images (closed afterwards, capped with notes), tables sent as
data with a compact preview, uploaded CSV/XLSX files read with pandas, the warm start.
"""

from __future__ import annotations

import sys
import time

import pytest

from agents.errors import AgentExecutionError
from agents.executors.previews import MAX_ROWS, TablePreview
from agents.executors.sandbox import SandboxExecutor

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux sandbox")

PLOT = "import matplotlib.pyplot as plt\nplt.plot([1, 3, 2])\nplt.title('three points')\n"


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory):
    data = tmp_path_factory.mktemp("data")
    (data / "sales.csv").write_text("month,total\nJan,10\nFeb,32\nMar,21\n")
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook()
    book.active.append(["item", "qty"])
    for row in (["bolts", 40], ["nuts", 2], ["washers", 7]):
        book.active.append(row)
    book.save(data / "stock.xlsx")
    executor = SandboxExecutor(timeout=60, read_only_paths=[str(data)])
    executor.data = data  # type: ignore[attr-defined]
    yield executor
    executor.close()


def test_stack_imports_by_default_and_a_plot_becomes_one_step_image(sandbox):
    out = sandbox("import numpy as np, pandas as pd\n" + PLOT + "float(np.mean([1, 3, 2]))")
    assert out.output == 2.0
    assert [image.size for image in out.images] == [(640, 480)]
    # Closed after capture: the next step starts without figures and shows none again.
    after = sandbox("plt.get_fignums()")
    assert after.output == [] and after.images == []


def test_show_draws_at_once_like_a_notebook_and_a_figure_value_is_shown_once(sandbox):
    out = sandbox("plt.plot([1]); plt.show(); plt.plot([2]); plt.show()\nplt.get_fignums()")
    assert len(out.images) == 2 and out.output == []
    figure = sandbox("fig, ax = plt.subplots(figsize=(3, 2))\nax.bar([1, 2], [3, 4])\nfig")
    assert figure.output.size == (300, 200)
    assert [image.size for image in figure.images] == [(300, 200)]  # not twice


def test_a_figure_given_to_final_answer_is_the_answer_image(sandbox):
    out = sandbox("fig = plt.figure(figsize=(2, 2))\nplt.plot([0, 1])\nfinal_answer(fig)")
    assert out.is_final_answer and out.output.size == (200, 200)


def test_a_figure_bomb_is_capped_with_notes_and_nothing_crashes(sandbox):
    many = sandbox("for i in range(100):\n    plt.figure(figsize=(1, 1))\nlen(plt.get_fignums())")
    assert many.output == 100 and len(many.images) == 10
    assert "90 more image(s) not shown: at most 10 per step" in many.logs
    huge = sandbox("fig = plt.figure(figsize=(1000, 1000), dpi=100)\nplt.plot([0, 1])\n'drawn'")
    assert huge.output == "drawn" and [image.size for image in huge.images] == [(4096, 4096)]
    assert "100000x100000 px was drawn at most 4096 px per side" in huge.logs
    wide = sandbox("from PIL import Image\ndisplay(Image.new('RGB', (9000, 90), 'red'))")
    assert [image.size for image in wide.images] == [(4096, 41)]
    assert "shrunk" in wide.logs
    assert sandbox("plt.get_fignums()").output == []


def test_figures_cannot_be_saved_outside_the_scratch_folder(sandbox):
    with pytest.raises(AgentExecutionError, match="PermissionError"):
        sandbox(PLOT + "plt.savefig('/tmp/escaped-figure.png')")
    assert sandbox("plt.savefig('inside.png')\n'saved'").output == "saved"


def test_a_dataframe_crosses_as_data_with_a_compact_preview(sandbox):
    out = sandbox(
        "import pandas as pd\n"
        "df = pd.DataFrame({'n': range(1_000_000), 'half': [i / 2 for i in range(1_000_000)]})\n"
        "df['text'] = 'x' * 5000\ndf"
    )
    table = out.output
    assert isinstance(table, TablePreview)
    assert table.shape == (1_000_000, 3) and table.columns == ["n", "half", "text"]
    assert len(table.rows) == MAX_ROWS and table.more_rows == 1_000_000 - MAX_ROWS
    assert table.rows[3][:2] == [3, 1.5] and len(table.rows[3][2]) <= 200
    assert table.dtypes[:2] == ["int64", "float64"]
    text = str(table)
    assert len(text) < 5000 and "1000000 rows × 3 columns" in text and "n (int64)" in text


def test_wide_tables_series_and_missing_values(sandbox):
    wide = sandbox("pd.DataFrame([[i * j for i in range(200)] for j in range(3)])").output
    assert wide.shape == (3, 200) and len(wide.columns) == 30 and wide.more_columns == 170
    series = sandbox("pd.Series([1.5, None, 3.0], index=['a', 'b', 'c'], name='v')").output
    assert series.kind == "Series" and series.has_index
    assert series.rows == [["a", 1.5], ["b", None], ["c", 3.0]]
    shown = sandbox("display(pd.DataFrame({'k': [1, 2]}))")
    assert "pandas DataFrame: 2 rows × 1 columns" in shown.logs


def test_uploaded_csv_and_xlsx_are_read_with_pandas(sandbox):
    folder = sandbox.data
    out = sandbox(
        f"sales = pd.read_csv({str(folder / 'sales.csv')!r})\n"
        f"stock = pd.read_excel({str(folder / 'stock.xlsx')!r})\n"
        "int(sales['total'].sum() + stock['qty'].sum())"
    )
    assert out.output == 63 + 49


def cpu_ticks(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as file:
        fields = file.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def wait_until_idle(pid: int, timeout: float = 60.0) -> None:
    """Wait until the worker has used no CPU for a second (its imports are done)."""
    deadline = time.monotonic() + timeout
    time.sleep(1.0)
    last = cpu_ticks(pid)
    while time.monotonic() < deadline:
        time.sleep(1.0)
        now = cpu_ticks(pid)
        if now == last:
            return
        last = now


def test_a_worker_imports_the_stack_while_idle_and_not_when_code_comes_at_once():
    probe = "import sys\nsorted(m for m in ('numpy', 'pandas', 'matplotlib.pyplot') if m in sys.modules)"
    spawned = {"additional_authorized_imports": ["sys"], "fork_from_template": False}
    with SandboxExecutor(**spawned) as busy:
        busy.start()
        assert busy(probe).output == []
    with SandboxExecutor(**spawned) as idle:
        idle.start()
        wait_until_idle(idle.worker_pid)
        assert idle(probe).output == ["matplotlib.pyplot", "numpy", "pandas"]
    with SandboxExecutor(additional_authorized_imports=["sys"], preload_data_stack=False) as off:
        off.start()
        wait_until_idle(off.worker_pid)  # settled, as the idle one above: nothing preloaded
        assert off(probe).output == []
