"""Mount system calls the sandbox worker uses to build its view of the files (Linux, through ctypes).

A private mount namespace, tmpfs folders, detached copies of folders (`open_tree`) made
read-only or id-mapped (`mount_setattr`) and attached at a path (`move_mount`), and the
small user namespace an id-mapped mount needs. The worker calls these as root, alone
(single-threaded), before it drops its ids. Standard library only.
"""

from __future__ import annotations

import ctypes
import os
import signal

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 0x1, 0x2, 0x4, 0x8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 0x20, 0x1000, 0x4000, 0x40000
_AT_FDCWD = -100
_AT_EMPTY_PATH = 0x1000
_AT_RECURSIVE = 0x8000
_OPEN_TREE_CLONE = 0x1
_OPEN_TREE_CLOEXEC = os.O_CLOEXEC
_MOVE_MOUNT_F_EMPTY_PATH = 0x4
_CLONE_PIDFD = 0x1000
MOUNT_ATTR_RDONLY, MOUNT_ATTR_NOSUID, MOUNT_ATTR_NODEV = 0x1, 0x2, 0x4
MOUNT_ATTR_IDMAP = 0x100000
# x86_64 and aarch64 share these numbers (the new mount API came after the tables merged).
_SYS_OPEN_TREE, _SYS_MOVE_MOUNT, _SYS_MOUNT_SETATTR = 428, 429, 442


class MountError(OSError):
    """A mount call failed (the kernel, the filesystem or the container refused it)."""


class _MountAttr(ctypes.Structure):
    _fields_ = [
        ("attr_set", ctypes.c_uint64),
        ("attr_clr", ctypes.c_uint64),
        ("propagation", ctypes.c_uint64),
        ("userns_fd", ctypes.c_uint64),
    ]


def _libc() -> ctypes.CDLL:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    libc.mount.argtypes = [ctypes.c_char_p] * 3 + [ctypes.c_ulong, ctypes.c_char_p]
    return libc


def _check(result: int, what: str) -> int:
    if result < 0:
        code = ctypes.get_errno()
        raise MountError(code, f"{what}: {os.strerror(code)}")
    return result


def private_namespace() -> None:
    """Move this process into a new mount namespace whose changes never reach the host."""
    libc = _libc()
    _check(libc.unshare(CLONE_NEWNS), "unshare(CLONE_NEWNS)")
    _check(libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "make / private")


def mount_tmpfs(path: str) -> None:
    """Cover `path` with a small empty tmpfs (mode 0755; no devices, setuid or programs).

    Args:
        path: The folder to cover.
    """
    flags = MS_NOSUID | MS_NODEV | MS_NOEXEC
    options = b"mode=0755,size=64k,nr_inodes=1024"
    _check(_libc().mount(b"tmpfs", path.encode(), b"tmpfs", flags, options), f"tmpfs on {path}")


def mount_proc() -> None:
    """A fresh /proc for this process's PID namespace: it lists the processes of that
    namespace only, and no kernel settings (`subset=pid`)."""
    flags = MS_NOSUID | MS_NODEV | MS_NOEXEC
    _check(_libc().mount(b"proc", b"/proc", b"proc", flags, b"subset=pid"), "proc on /proc")


def make_read_only(path: str) -> None:
    """Remount the mount at `path` read-only (e.g. a tmpfs once it is filled).

    Args:
        path: Where the mount is.
    """
    flags = MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC
    _check(_libc().mount(None, path.encode(), None, flags, None), f"read-only {path}")


def clone_tree(path: str, read_only: bool, idmap_fd: int | None = None) -> int:
    """A detached copy of the mounts at `path` (not yet visible anywhere); returns its fd.

    Args:
        path: The folder or file to copy.
        read_only: Make the copy read-only.
        idmap_fd: A user namespace whose id map the copy shows owners through (see
            `idmap_namespace`); None keeps the owners as they are.
    """
    libc = _libc()
    flags = _OPEN_TREE_CLONE | _OPEN_TREE_CLOEXEC | _AT_RECURSIVE
    fd = _check(libc.syscall(_SYS_OPEN_TREE, _AT_FDCWD, path.encode(), flags), f"copy {path}")
    attr = _MountAttr(attr_set=MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV)
    if read_only:
        attr.attr_set |= MOUNT_ATTR_RDONLY
    if idmap_fd is not None:
        attr.attr_set |= MOUNT_ATTR_IDMAP
        attr.userns_fd = idmap_fd
    try:
        where = _AT_EMPTY_PATH | _AT_RECURSIVE
        size = ctypes.sizeof(attr)
        result = libc.syscall(_SYS_MOUNT_SETATTR, fd, b"", where, ctypes.byref(attr), size)
        _check(result, f"set attributes of {path}")
    except MountError:
        os.close(fd)
        raise
    return fd


def attach(tree_fd: int, path: str) -> None:
    """Attach a tree from `clone_tree` at `path` (which must exist), and close its fd.

    Args:
        tree_fd: The fd `clone_tree` returned.
        path: Where the tree appears.
    """
    try:
        result = _libc().syscall(
            _SYS_MOVE_MOUNT, tree_fd, b"", _AT_FDCWD, path.encode(), _MOVE_MOUNT_F_EMPTY_PATH
        )
        _check(result, f"attach at {path}")
    finally:
        os.close(tree_fd)


def idmap_namespace(uids: tuple[int, int], gids: tuple[int, int]) -> int:
    """An fd of a new user namespace that maps one uid and one gid, each `(inside, outside)`.

    An id-mapped mount made with it shows files owned by `inside` as owned by `outside`.
    The namespace is made by `clone` for a child that only waits (no Python runs in it,
    so nothing waits for it to be scheduled); this process (root) writes its id maps,
    keeps the namespace and kills the child (a caller that ignores SIGCHLD leaves no
    zombie behind, and does not wait for the child to die).

    Args:
        uids: `(inside, outside)`: files owned by uid `inside` appear owned by `outside`.
        gids: The same for the group.
    """
    libc = _libc()
    stack = ctypes.create_string_buffer(16 * 1024)  # the child's copy of it is its stack
    top = (ctypes.addressof(stack) + len(stack) - 64) & ~0xF
    pidfd = ctypes.c_int(-1)
    flags = CLONE_NEWUSER | _CLONE_PIDFD | signal.SIGCHLD
    wait = ctypes.cast(libc.pause, ctypes.c_void_p)
    pid = libc.clone(wait, ctypes.c_void_p(top), flags, None, ctypes.byref(pidfd))
    _check(pid, "clone(CLONE_NEWUSER)")
    try:
        # /proc names it by its pid out there, not by `pid` (this worker's PID namespace).
        proc = f"/proc/{_proc_pid(pidfd.value)}"
        for name, (inside, outside) in (("uid_map", uids), ("gid_map", gids)):
            _write(f"{proc}/{name}", f"{inside} {outside} 1")
        return os.open(f"{proc}/ns/user", os.O_RDONLY | os.O_CLOEXEC)
    finally:
        os.kill(pid, signal.SIGKILL)
        os.close(pidfd.value)


def _proc_pid(pidfd: int) -> str:
    with open(f"/proc/self/fdinfo/{pidfd}") as file:
        for line in file:
            if line.startswith("Pid:"):
                return line.split()[1]
    raise MountError(0, "no pid in the pidfd's fdinfo")


def _write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)
