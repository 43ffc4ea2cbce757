"""Which system calls the sandbox worker makes on real workloads, against the seccomp allow-list.

    python bench/sandbox_syscalls.py            # needs strace (Debian: apt install strace)

Runs typical agent code (the standard library, files, sqlite, threads, numpy, pandas,
matplotlib, Pillow, openpyxl, python-docx, pypdf, a tool call) in a real `SandboxExecutor`
under `strace -f`, then prints every call the workers made with its count, marking those
the filter refuses. Calls made before the filter is loaded (start-up, confinement) show up
too; a refused call in the workload's own steps shows as an error line in the output.
Use it when a library fails with PermissionError in the sandbox, or after an upgrade.
"""

from __future__ import annotations

import collections
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from agents.executors.sandbox import seccomp  # noqa: E402

STEPS = [
    "import json, re, random, collections, datetime, decimal, hashlib, uuid, secrets, time\n"
    "uuid.uuid4(); secrets.token_hex(8); datetime.datetime.now(); time.sleep(0.01)",
    "import os, shutil, tempfile, pathlib, zipfile, tarfile\nos.makedirs('d/e', exist_ok=True)\n"
    "open('d/e/f.txt', 'w').write('x')\nshutil.copy('d/e/f.txt', 'g.txt')\n"
    "shutil.copy2('g.txt', 'h.txt')\nlist(pathlib.Path('.').rglob('*'))\n"
    "with tempfile.TemporaryDirectory() as t:\n    open(t + '/x', 'w').write('y')\n"
    "zipfile.ZipFile('a.zip', 'w').writestr('a.txt', 'hello')\n"
    "zipfile.ZipFile('a.zip').extractall('unz')\n"
    "with tarfile.open('a.tgz', 'w:gz') as t:\n    t.add('unz')\nshutil.rmtree('d')",
    "import sqlite3\nc = sqlite3.connect('db.sqlite'); c.execute('create table t(a)'); c.commit()",
    "import threading, concurrent.futures\n"
    "with concurrent.futures.ThreadPoolExecutor(4) as ex:\n    list(ex.map(abs, range(10)))",
    "import numpy as np\na = np.random.default_rng(0).normal(size=(200, 200))\n"
    "float(np.linalg.inv(a @ a.T + np.eye(200)).sum())",
    "import pandas as pd\ndf = pd.DataFrame({'a': range(100), 'c': ['x', 'y'] * 50})\n"
    "df.to_csv('df.csv'); pd.read_csv('df.csv').groupby('c').sum(); df.to_excel('df.xlsx')",
    "import matplotlib.pyplot as plt\nplt.plot([1, 2, 3]); plt.savefig('p.png'); plt.savefig('p.pdf')",
    "from PIL import Image, ImageDraw\nim = Image.new('RGB', (64, 32)); ImageDraw.Draw(im).text((2, 2), 'hi')\n"
    "im.save('i.png'); im.save('i.jpg'); display(im)",
    "import docx, pypdf\nd = docx.Document(); d.add_paragraph('hi'); d.save('a.docx')\n"
    "w = pypdf.PdfWriter(); w.add_blank_page(100, 100); w.write('a.pdf')\n"
    "len(pypdf.PdfReader('a.pdf').pages), docx.Document('a.docx').paragraphs[0].text",
    "echo(1) + echo(2)",
]

DRIVER = """
import sys
sys.path.insert(0, {root!r})
from agents.errors import AgentExecutionError
from agents.executors.sandbox import SandboxExecutor
with SandboxExecutor(additional_authorized_imports=["*"], timeout=60, spare_worker=False) as ex:
    ex.send_tools({{"echo": lambda x: x}})
    for code in {steps!r}:
        try:
            ex(code)
            print("ok   ", code.splitlines()[0][:70])
        except AgentExecutionError as error:
            print("ERROR", code.splitlines()[0][:70], "->", error.message[:300])
"""

_LINE = re.compile(r"^(\d+)\s+(?:<\.\.\. (\w+) resumed>|(\w+)\()")
_CHILD = re.compile(r"= (\d+)\s*$")


def worker_calls(trace: str) -> collections.Counter[str]:
    """Count the calls made by sandbox workers (and their threads) in an `strace -f` log."""
    workers: set[int] = set()
    counts: collections.Counter[str] = collections.Counter()
    for line in trace.splitlines():
        match = _LINE.match(line)
        if not match:
            continue
        pid, name = int(match.group(1)), match.group(2) or match.group(3)
        if name == "execve" and '"-I", "-S", "-B"' in line:
            workers.add(pid)
            continue
        if pid not in workers:
            continue
        counts[name] += 1
        child = _CHILD.search(line) if name in ("clone", "clone3") else None
        if child:
            workers.add(int(child.group(1)))
    return counts


def verdict(name: str) -> str:
    if name in seccomp.ALLOWED:
        return "allowed"
    if name in seccomp.IGNORED:
        return "no-op"
    if name in seccomp.UNSUPPORTED:
        return "ENOTSUP"
    if name in seccomp.ARGUMENT_CHECKED:
        return "arguments checked"
    return "REFUSED (EPERM)"


def main() -> None:
    if shutil.which("strace") is None:
        sys.exit("strace is not installed (Debian: apt install strace)")
    with tempfile.TemporaryDirectory() as folder:
        log = Path(folder, "trace.txt")
        driver = DRIVER.format(root=str(ROOT), steps=STEPS)
        run = subprocess.run(
            ["strace", "-f", "-qq", "-o", str(log), sys.executable, "-c", driver],
            capture_output=True,
            text=True,
        )
        print(textwrap.indent(run.stdout + run.stderr[-2000:], "  "))
        counts = worker_calls(log.read_text(errors="replace"))
    print(f"{len(counts)} distinct calls made by the workers:")
    for name, count in sorted(counts.items()):
        print(f"  {name:24s} {count:7d}  {verdict(name)}")


if __name__ == "__main__":
    main()
