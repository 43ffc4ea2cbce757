"""A seccomp filter, built with libseccomp through ctypes, that the sandbox worker applies to itself.

Everything is allowed except what lets code leave the process: new processes (threads
stay allowed), exec, sockets, tracing, mounts and namespaces, kernel modules, signals to
other processes, resource-limit changes, io_uring (whose operations bypass seccomp), and
a few other dangerous calls. Denied calls fail with EPERM, so Python raises a clear
`PermissionError` instead of dying. Standard library only.
"""

from __future__ import annotations

import ctypes
import errno
import os

_ACT_ALLOW = 0x7FFF0000
_CMP_NE = 1
_CMP_MASKED_EQ = 7
CLONE_THREAD = 0x00010000
_LOW32 = 0xFFFFFFFF

# Calls that have no business in agent code, by what they would let it do; each answers EPERM.
_DENIED_BY_PURPOSE = {
    "start programs": "execve execveat fork vfork",
    "reach other processes": "ptrace process_vm_readv process_vm_writev kcmp pidfd_open "
    "pidfd_getfd pidfd_send_signal tkill migrate_pages move_pages",
    "use the network": "socket socketpair connect bind listen accept accept4",
    "change the filesystem view": "mount umount2 pivot_root chroot unshare setns move_mount "
    "open_tree fsopen fsmount fsconfig fspick mount_setattr name_to_handle_at open_by_handle_at",
    "change the kernel": "kexec_load kexec_file_load init_module finit_module delete_module "
    "reboot swapon swapoff bpf perf_event_open userfaultfd keyctl add_key request_key syslog "
    "lookup_dcookie fanotify_init uselib iopl ioperm acct quotactl vhangup",
    "bypass seccomp": "io_uring_setup io_uring_enter io_uring_register",
    "change the machine or the limits": "setrlimit settimeofday clock_settime clock_adjtime "
    "adjtimex sethostname setdomainname personality mknod mknodat",
}
DENIED = tuple(name for names in _DENIED_BY_PURPOSE.values() for name in names.split())

# ioctl/fcntl commands that inject terminal input or route signals to other processes.
_DENIED_IOCTLS = (0x5412, 0x541C, 0x8901, 0x8902)  # TIOCSTI, TIOCLINUX, FIOSETOWN, SIOCSPGRP
_DENIED_FCNTLS = (8, 10, 15)  # F_SETOWN, F_SETSIG, F_SETOWN_EX


class SeccompUnavailable(OSError):
    """libseccomp is missing, or the kernel refused the filter."""


class _ArgCmp(ctypes.Structure):
    _fields_ = [
        ("arg", ctypes.c_uint),
        ("op", ctypes.c_int),
        ("datum_a", ctypes.c_uint64),
        ("datum_b", ctypes.c_uint64),
    ]


def _errno_action(code: int) -> int:
    return 0x00050000 | (code & 0xFFFF)


def _load_library() -> ctypes.CDLL:
    # Named directly: ctypes.util.find_library would spawn ldconfig, slow and pointless here.
    for name in ("libseccomp.so.2", "libseccomp.so"):
        try:
            lib = ctypes.CDLL(name, use_errno=True)
        except OSError:
            continue
        lib.seccomp_init.restype = ctypes.c_void_p
        lib.seccomp_init.argtypes = [ctypes.c_uint32]
        lib.seccomp_rule_add_array.argtypes = [
            ctypes.c_void_p,
            ctypes.c_uint32,
            ctypes.c_int,
            ctypes.c_uint,
            ctypes.POINTER(_ArgCmp),
        ]
        lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
        lib.seccomp_load.argtypes = [ctypes.c_void_p]
        lib.seccomp_release.argtypes = [ctypes.c_void_p]
        return lib
    raise SeccompUnavailable("libseccomp is not installed (Debian/Ubuntu: libseccomp2)")


class _Filter:
    """A libseccomp context that collects rules, then loads them."""

    def __init__(self, lib: ctypes.CDLL):
        self.lib = lib
        self.ctx = lib.seccomp_init(_ACT_ALLOW)
        if not self.ctx:
            raise SeccompUnavailable("seccomp_init failed")
        self.skipped: list[str] = []

    def deny(self, name: str, code: int = errno.EPERM, *conditions: tuple[int, int, int, int]):
        number = self.lib.seccomp_syscall_resolve_name(name.encode())
        if number < 0:  # not a call on this architecture
            self.skipped.append(name)
            return
        array = (_ArgCmp * max(len(conditions), 1))(*[_ArgCmp(*c) for c in conditions])
        result = self.lib.seccomp_rule_add_array(
            self.ctx, _errno_action(code), number, len(conditions), array
        )
        if result < 0:
            raise SeccompUnavailable(f"rule for {name}: {os.strerror(-result)}")

    def load(self) -> None:
        try:
            result = self.lib.seccomp_load(self.ctx)
            if result < 0:
                raise SeccompUnavailable(f"seccomp_load: {os.strerror(-result)}")
        finally:
            self.lib.seccomp_release(self.ctx)


def install() -> dict[str, object]:
    """Apply the filter to this process, for good (threads started later inherit it).

    Returns a report naming the calls this architecture does not have.
    Raises SeccompUnavailable when libseccomp or the kernel cannot do it.
    """
    lib = _load_library()
    rules = _Filter(lib)
    me = os.getpid()
    for name in DENIED:
        rules.deny(name)
    # glibc starts threads with clone3, whose flags live in memory seccomp cannot read:
    # answer ENOSYS so glibc falls back to clone, where the flags are an argument.
    rules.deny("clone3", errno.ENOSYS)
    rules.deny("clone", errno.EPERM, (0, _CMP_MASKED_EQ, CLONE_THREAD, 0))
    for name in ("kill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo"):
        rules.deny(name, errno.EPERM, (0, _CMP_NE, me, 0))
    rules.deny("prlimit64", errno.EPERM, (2, _CMP_NE, 0, 0))  # reading limits is fine
    for command in _DENIED_IOCTLS:
        rules.deny("ioctl", errno.EPERM, (1, _CMP_MASKED_EQ, _LOW32, command))
    for command in _DENIED_FCNTLS:
        rules.deny("fcntl", errno.EPERM, (1, _CMP_MASKED_EQ, _LOW32, command))
    rules.load()
    return {"denied": len(DENIED) + 1, "unknown_on_this_arch": rules.skipped}
