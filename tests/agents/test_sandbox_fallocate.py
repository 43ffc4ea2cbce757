"""Attack on the disk quota (issue 20, independent check): fallocate reserved disk far
faster than the host's quota walk runs (400 MB in 0.6 ms, and with FALLOC_FL_KEEP_SIZE
past the file-size limit), so a step could fill the host's disk between two walks. It now
answers "not supported"; `posix_fallocate` still works by writing zeros.
"""

from __future__ import annotations

import sys
import textwrap

import pytest

from agents.executors.sandbox import SandboxExecutor

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux sandbox")

RESERVE = """
import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
fd = os.open('reserved', os.O_CREAT | os.O_WRONLY, 0o600)
keep_size = libc.fallocate(fd, 1, ctypes.c_long(0), ctypes.c_long(200 << 20))
keep_size_errno = ctypes.get_errno()
reserved = os.fstat(fd).st_blocks * 512
os.close(fd)
fd = os.open('zeros', os.O_CREAT | os.O_WRONLY, 0o600)
os.posix_fallocate(fd, 0, 1 << 20)
(keep_size, keep_size_errno == errno.EOPNOTSUPP, reserved, os.fstat(fd).st_size)
"""


def test_fallocate_cannot_reserve_disk_behind_the_quota_walk():
    with SandboxExecutor(additional_authorized_imports=["*"]) as executor:
        executor.start()  # reading `isolation` starts nothing
        if not executor.isolation["seccomp"]:
            pytest.skip(f"no seccomp here: {executor.isolation['notes']}")
        result = executor(textwrap.dedent(RESERVE)).output
    assert result[:3] == (-1, True, 0)  # "not supported": nothing reserved
    assert result[3] == 1 << 20  # posix_fallocate falls back to writing zeros
