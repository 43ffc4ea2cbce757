"""What a sandbox worker sees of the host: the folders it may read and its environment."""

from __future__ import annotations

import os
import site
import sys

# System folders a Python process may need to read (shared libraries, time zones).
_SYSTEM_READ_ONLY = (
    "/usr/lib",
    "/usr/lib64",
    "/lib",
    "/lib64",
    "/usr/local/lib",
    "/usr/share/zoneinfo",
    "/etc/ld.so.cache",
    "/etc/localtime",
    "/etc/mime.types",  # read by `mimetypes.init()` (openpyxl, so `pandas.read_excel`)
    "/dev/urandom",
    "/dev/random",
    "/dev/zero",
)


def package_paths() -> list[str]:
    """The site-packages folders of this interpreter (the worker starts without `site`)."""
    found = list(site.getsitepackages()) if hasattr(site, "getsitepackages") else []  # not in venvs
    found += [p for p in sys.path if p.endswith(("site-packages", "dist-packages"))]
    return [p for p in dict.fromkeys(found) if os.path.isdir(p)]


def default_read_only_paths() -> list[str]:
    """The Python installation, its packages and the system libraries, nothing else."""
    prefixes = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    paths = [*sorted(prefixes), *package_paths(), *_SYSTEM_READ_ONLY]
    # A prefix of "/" or a home folder would open far more than the installation.
    too_wide = {"/", os.path.expanduser("~"), "/home", "/root"}
    return [p for p in dict.fromkeys(paths) if os.path.exists(p) and p not in too_wide]


def base_environment() -> dict[str, str]:
    """The environment a worker starts with: nothing from the host (no tokens, no keys)."""
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "MPLBACKEND": "Agg",
        # Math libraries otherwise start a thread per core at import, each with big buffers.
        "OMP_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }


def session_environment(scratch: str, extra: dict[str, str] | None = None) -> dict[str, str]:
    """What the worker adds at setup: its folder as HOME and TMPDIR, plus the caller's extras."""
    # matplotlib keeps its font list in a hidden folder, out of the code's sight in `ls`.
    mpl = os.path.join(scratch, ".matplotlib")
    return {"HOME": scratch, "TMPDIR": scratch, "MPLCONFIGDIR": mpl, **(extra or {})}
