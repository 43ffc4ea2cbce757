"""Data uploads: CSV, TSV and XLSX files (real files, XLSX written with openpyxl) are checked,
stored and summarized for the model; macro-enabled, disguised and bomb workbooks are refused.
"""

from __future__ import annotations

import zipfile

import pytest

from smolui.uploads import UploadPolicy, ingest

openpyxl = pytest.importorskip("openpyxl")


def workbook(path, rows, sheets=("Data",)):
    book = openpyxl.Workbook()
    book.active.title = sheets[0]
    for row in rows:
        book.active.append(row)
    for name in sheets[1:]:
        book.create_sheet(name).append(["other"])
    book.save(path)
    return path


def test_csv_tsv_and_xlsx_are_summarized_for_the_model(tmp_path):
    incoming, session = tmp_path / "in", tmp_path / "session"
    incoming.mkdir()
    (incoming / "a").write_text("month;total\nJan;10\nFeb;32\n\nMar;21\n", encoding="utf-8")
    (incoming / "b").write_bytes("city\tvisitors\nZürich\t12\n".encode("cp1252"))
    rows = [["item", "qty"], *[[f"part {i}", i] for i in range(1, 8)]]
    workbook(incoming / "c", rows, sheets=("Stock", "Notes"))
    files = [("sales.csv", incoming / "a"), ("cities.tsv", incoming / "b"),
             ("stock.xlsx", incoming / "c")]  # fmt: skip
    result = ingest(files, session)
    assert result.refused == []
    csv, tsv, xlsx = result.accepted
    assert (csv.kind, csv.label, csv.table.columns, csv.table.rows) == (
        "table", "CSV table", ["month", "total"], 3,
    )  # fmt: skip
    assert csv.table.delimiter == ";" and csv.table.first_rows[0] == ["Jan", "10"]
    assert tsv.table.columns == ["city", "visitors"] and tsv.table.first_rows == [["Zürich", "12"]]
    assert xlsx.label == "Excel workbook" and xlsx.table.sheets == ["Stock", "Notes"]
    assert (xlsx.table.columns, xlsx.table.rows) == (["item", "qty"], 7)
    assert xlsx.table.first_rows[:2] == [["part 1", "1"], ["part 2", "2"]]
    note = result.note
    assert f"pd.read_csv({str(csv.stored_path)!r}, sep=';')" in note
    assert f"pd.read_csv({str(tsv.stored_path)!r}, sep='\\t')" in note
    assert f"pd.read_excel({str(xlsx.stored_path)!r})" in note and "'Stock', 'Notes'" in note
    assert "3 rows × 2 columns" in note and "7 rows × 2 columns, 2 sheets" in note
    assert "  > Jan | 10" in note and "Columns: 'item', 'qty'." in note
    lines = result.user_messages()
    assert lines[0].startswith("Attached sales.csv (CSV table, 3 rows × 2 columns")


def test_macro_enabled_old_and_disguised_workbooks_are_refused(tmp_path):
    incoming = tmp_path / "in"
    incoming.mkdir()
    real = workbook(incoming / "book", [["a"], [1]])
    with_macros = incoming / "macros"
    with zipfile.ZipFile(real) as source, zipfile.ZipFile(with_macros, "w") as target:
        for item in source.infolist():
            target.writestr(item, source.read(item))
        target.writestr("xl/vbaProject.bin", b"\xd0\xcf\x11\xe0 macro storage")
    (incoming / "csv").write_text("a,b\n1,2\n")
    docx_like = incoming / "zip"
    with zipfile.ZipFile(docx_like, "w") as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("word/document.xml", "<w:document/>")
    files = [("book.xlsm", real), ("renamed.xlsx", with_macros), ("old.xls", real),
             ("table.xlsx", incoming / "csv"), ("memo.xlsx", docx_like)]  # fmt: skip
    result = ingest(files, tmp_path / "session")
    assert result.accepted == []
    reasons = {item.display_name: item.reason for item in result.refused}
    assert "macro-enabled workbooks (.xlsm) are refused" in reasons["book.xlsm"]
    assert "holds macros" in reasons["renamed.xlsx"]
    assert "not supported" in reasons["old.xls"]
    assert reasons["table.xlsx"] == "the content is not an Excel workbook (.xlsx)"
    assert "not an Excel workbook" in reasons["memo.xlsx"]
    assert list((tmp_path / "session").iterdir()) == []


def test_bombs_and_oversized_data_files_are_refused(tmp_path):
    incoming = tmp_path / "in"
    incoming.mkdir()
    bomb = workbook(incoming / "bomb", [["a"], [1]])
    with zipfile.ZipFile(bomb, "a", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("xl/media/zeros.bin", b"\0" * (20 * 1024 * 1024))
    (incoming / "big").write_text("n\n" + "1\n" * 600_000)
    (incoming / "binary").write_bytes(b"\x7fELF\x02\x01\x01" + b"\0" * 100)
    policy = UploadPolicy(max_file_bytes=1024 * 1024)
    files = [("bomb.xlsx", bomb), ("big.csv", incoming / "big"), ("tool.csv", incoming / "binary")]
    result = ingest(files, tmp_path / "session", policy)
    assert result.accepted == []
    reasons = {item.display_name: item.reason for item in result.refused}
    assert "looks like a zip bomb" in reasons["bomb.xlsx"] and "workbook" not in reasons["big.csv"]
    assert "over the limit of 1.0 MB per file" in reasons["big.csv"]
    assert "a Linux program" in reasons["tool.csv"]


def test_a_large_csv_is_counted_and_quoted_briefly(tmp_path):
    source = tmp_path / "rows.csv"
    source.write_text("id,value\n" + "".join(f"{i},{i * 2}\n" for i in range(50_000)))
    result = ingest([("rows.csv", source)], tmp_path / "session")
    (item,) = result.accepted
    assert item.table.rows == 50_000 and len(item.table.first_rows) == 5
    assert "50,000 rows × 2 columns" in result.note and len(result.note) < 1500


def test_html_markdown_and_json_are_text_documents(tmp_path):
    files = []
    for name, text in (("page.html", "<html><body><h1>Prices</h1><p>Tea 4</p></body></html>"),
                       ("notes.md", "# Notes\n\nTea costs 4."), ("data.json", '[{"tea": 4}]')):  # fmt: skip
        (tmp_path / name).write_text(text)
        files.append((name, tmp_path / name))
    result = ingest(files, tmp_path / "session")
    assert result.refused == []
    assert [item.kind for item in result.accepted] == ["text", "text", "text"]
    assert (
        "Tea 4" in result.accepted[0].first_lines and '"tea": 4' in result.accepted[2].first_lines
    )
