"""Upload extraction benchmark: time and peak memory (RSS) for a 300-page PDF and a 20 MB DOCX.

Run: python bench/uploads.py [--pages 300] [--docx-mb 20]

Each measurement runs in a fresh Python process, so its peak RSS is that of one extraction
(interpreter and libraries included) and nothing else. Goal on this machine: under 10 s and
under 500 MB for each file.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def build_pdf(folder: Path, pages: int) -> Path:
    from tests.samples import report_pages, write_pdf

    return write_pdf(folder / "report.pdf", report_pages(pages, lines_per_page=45))


def build_docx(folder: Path, target_mb: int) -> Path:
    """A long report (text, tables) with photos embedded until the file reaches target_mb."""
    from PIL import Image

    from tests.samples import report_pages, write_docx

    paragraphs = [
        line for page in report_pages(400, lines_per_page=30) for line in page.splitlines()
    ]
    tables = [[[f"r{row}c{col}" for col in range(6)] for row in range(40)] for _ in range(20)]
    photos, size = [], len(paragraphs) * 40
    rng = random.Random(3)
    while size < target_mb * 1024 * 1024:
        photo = folder / f"photo{len(photos)}.jpg"
        Image.frombytes("RGB", (900, 700), rng.randbytes(900 * 700 * 3)).save(photo, quality=92)
        photos.append(photo)
        size += photo.stat().st_size
    return write_docx(folder / "report.docx", paragraphs, tables=tables, images=photos)


def peak_rss_mb() -> float:
    """Peak resident memory of this process in MB.

    /proc's VmHWM starts afresh at exec; ru_maxrss would also count the parent's memory at
    the time of the fork.
    """
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return (
        resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        / 1024
        / (1024 if sys.platform == "darwin" else 1)
    )


def child(kind: str, path: str) -> None:
    """Measure one extraction in this (fresh) process and print JSON."""
    sys.path.insert(0, str(ROOT))
    import docx  # noqa: F401  (imported first: the baseline then includes the libraries)
    import pypdf  # noqa: F401
    from PIL import Image  # noqa: F401

    from smolui.uploads import ingest
    from tools.document_reader import read_document

    baseline_mb = peak_rss_mb()
    started = time.perf_counter()
    if kind == "ingest":
        with tempfile.TemporaryDirectory() as session:
            result = ingest([(Path(path).name, path)], Path(session) / "s")
            item = result.accepted[0] if result.accepted else None
            pages, chars = (item.pages, item.chars) if item else (0, 0)
    else:
        document = read_document(path)
        pages, chars = len(document.pages), document.chars
    elapsed = time.perf_counter() - started
    peak_mb = peak_rss_mb()
    row = {"seconds": elapsed, "peak_mb": peak_mb, "baseline_mb": baseline_mb}
    print(json.dumps({**row, "pages": pages, "chars": chars}))


def measure(kind: str, path: Path) -> dict:
    command = [sys.executable, __file__, "--child", kind, str(path)]
    output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    return json.loads(output.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=300)
    parser.add_argument("--docx-mb", type=int, default=20)
    parser.add_argument("--child", nargs=2, metavar=("KIND", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    sys.path.insert(0, str(ROOT))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        files = {"PDF": build_pdf(folder, args.pages), "DOCX": build_docx(folder, args.docx_mb)}
        measure("read", files["PDF"])  # warm the disk cache once
        print(
            f"{'file':<14} {'step':<14} {'seconds':>8} {'peak RSS':>9} {'libs':>7} {'pages':>6} {'chars':>10}"
        )
        for label, path in files.items():
            name = f"{label} {path.stat().st_size / 2**20:.1f} MB"
            for kind, step in (("read", "read_document"), ("ingest", "ingest()")):
                row = measure(kind, path)
                print(
                    f"{name:<14} {step:<14} {row['seconds']:>8.2f} {row['peak_mb']:>6.0f} MB "
                    f"{row['baseline_mb']:>4.0f} MB {row['pages']:>6} {row['chars']:>10,}"
                )
    print("peak RSS: whole process; libs: after importing Python, pypdf, python-docx and Pillow")
    print("goal: under 10 s and under 500 MB per file")


if __name__ == "__main__":
    main()
