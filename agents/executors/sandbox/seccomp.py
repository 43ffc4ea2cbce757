"""A seccomp filter, built with libseccomp through ctypes, that the sandbox worker applies to itself.

Deny by default: only the system calls CPython and the scientific stack (numpy, pandas,
matplotlib, Pillow, sqlite, openpyxl, python-docx, pypdf) were measured to need are allowed, several of them
only with safe arguments (threads but not processes, signals to itself only, reading limits
but not changing them, a short list of ioctl/fcntl/prctl commands). Anything else fails
with EPERM, so Python raises a clear `PermissionError` instead of dying. Mode and time
changes (chmod, utime families) answer success without doing anything, so `shutil.copy`
keeps working while no file's mode can change, and no file can be created setuid or
setgid; reading extended attributes answers "not supported". Standard library only.

How the list was measured: `strace -f` over real workloads run in the worker; rerun it
with `python bench/sandbox_syscalls.py`.
"""

from __future__ import annotations

import ctypes
import errno
import os

_ACT_ALLOW = 0x7FFF0000
_CMP_EQ = 4
_CMP_MASKED_EQ = 7
_ATTR_OPTIMIZE = 8  # SCMP_FLTATR_CTL_OPTIMIZE: 2 = a binary tree instead of a linear list
CLONE_THREAD = 0x00010000
# New namespaces must never come with a thread (they need capabilities anyway).
_CLONE_NAMESPACES = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000
_CLONE_NAMESPACES |= 0x20000000 | 0x40000000
_LOW32 = 0xFFFFFFFF

# Allowed with any arguments, by what they are for. Paths are confined by Landlock.
_ALLOWED_BY_PURPOSE = {
    "file descriptors": "read write readv writev pread64 pwrite64 preadv pwritev preadv2 "
    "pwritev2 lseek close close_range dup dup2 dup3 pipe pipe2 sendfile copy_file_range "
    "splice tee fsync fdatasync flock eventfd eventfd2",
    "paths": "stat fstat lstat newfstatat statx access faccessat "
    "faccessat2 readlink readlinkat getdents getdents64 getcwd chdir fchdir mkdir mkdirat "
    "rmdir unlink unlinkat rename renameat renameat2 link linkat symlink symlinkat truncate "
    "ftruncate statfs fstatfs umask",
    "memory": "brk mmap munmap mremap mprotect madvise msync mbind get_mempolicy set_mempolicy",
    # No timer_create: a POSIX timer can send SIGCONT, which would wake a worker the host
    # froze between steps (see `WorkerProcess.pause`); setitimer's signals are fixed.
    "time": "nanosleep clock_nanosleep clock_gettime clock_getres gettimeofday time getitimer "
    "setitimer alarm timer_settime timer_gettime timer_getoverrun timer_delete "
    "timerfd_create timerfd_settime timerfd_gettime times getrusage",
    "signals": "rt_sigaction rt_sigprocmask rt_sigreturn rt_sigpending rt_sigtimedwait "
    "rt_sigsuspend sigaltstack pause signalfd signalfd4 restart_syscall",
    "threads": "futex futex_waitv set_robust_list rseq set_tid_address arch_prctl sched_yield "
    "sched_getaffinity sched_getparam sched_getscheduler sched_get_priority_max "
    "sched_get_priority_min sched_rr_get_interval getcpu exit exit_group wait4 waitid",
    "facts about itself": "getpid gettid getppid getuid geteuid getgid getegid getgroups "
    "getresuid getresgid getpgrp getpgid getsid uname sysinfo capget getrandom getrlimit "
    "getpriority",
    "waiting": "select pselect6 poll ppoll epoll_create epoll_create1 epoll_ctl epoll_wait "
    "epoll_pwait epoll_pwait2",
}
ALLOWED = tuple(name for names in _ALLOWED_BY_PURPOSE.values() for name in names.split())

# Answer success and do nothing: no file's mode or times may change (Landlock does not
# cover them), yet copying a file (`shutil.copy`, which copies the mode) still works.
IGNORED = ("chmod", "fchmod", "fchmodat", "fchmodat2", "utime", "utimes", "utimensat", "futimesat")

# Answer "not supported": no file's extended attributes can be read (Landlock does not
# cover them, for any path), and `shutil.copy2` takes that as "nothing to copy".
UNSUPPORTED = ("listxattr", "llistxattr", "flistxattr", "getxattr", "lgetxattr", "fgetxattr")
# fallocate also answers "not supported": it reserves disk in microseconds (with
# FALLOC_FL_KEEP_SIZE past the file-size limit too: 400 MB in 0.6 ms), far faster than
# the host's quota walk; `posix_fallocate` then writes zeros instead, at disk speed.
UNSUPPORTED += ("fallocate",)

# Allowed only with some arguments (see `_add_argument_rules`); clone3 answers ENOSYS.
ARGUMENT_CHECKED = ("clone", "clone3", "kill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo")
ARGUMENT_CHECKED += ("prlimit64", "ioctl", "fcntl", "prctl", "open", "openat", "creat", "openat2")

# Which argument of each call that creates files holds the new file's mode. A file may
# not be created setuid or setgid: where the worker has an id of its own, its scratch
# folder's files belong to the app's user on disk (see `view`), so such a file would be
# a setuid program of the app's (chmod never changes modes, see IGNORED). openat2 keeps
# the mode in memory that seccomp cannot read: it answers ENOSYS (callers fall back).
_MODE_ARGUMENT = {"open": 2, "openat": 3, "creat": 1}
_SET_ID_BITS = 0o6000

# Commands allowed for calls that take one (everything else: EPERM).
_IOCTLS = (0x5401, 0x5413, 0x540F, 0x541B, 0x5421, 0x5450, 0x5451)
# TCGETS, TIOCGWINSZ, TIOCGPGRP, FIONREAD, FIONBIO, FIONCLEX, FIOCLEX (isatty, non-blocking)
_FCNTLS = (0, 1, 2, 3, 4, 5, 6, 7, 36, 37, 38, 1030, 1032, 1034)
# F_DUPFD .. F_SETLKW, F_OFD_*LK, F_DUPFD_CLOEXEC, F_GETPIPE_SZ, F_GET_SEALS (no F_SETOWN,
# F_SETSIG, F_NOTIFY, F_SETLEASE, F_SETPIPE_SZ)
_PRCTLS = (2, 3, 15, 16, 21, 23, 30, 39, 42, 0x53564D41)
# PR_GET_PDEATHSIG, PR_GET_DUMPABLE, PR_SET_NAME, PR_GET_NAME, PR_GET_SECCOMP,
# PR_CAPBSET_READ, PR_GET_TIMERSLACK, PR_GET_NO_NEW_PRIVS, PR_GET_THP_DISABLE, PR_SET_VMA

# Named here so the tests and the README can say what stays out; all get EPERM by default.
_NOTABLY_DENIED = (
    "execve execveat fork vfork clone3 socket socketpair ptrace process_vm_readv "
    "process_vm_writev kcmp pidfd_open pidfd_getfd pidfd_send_signal tkill chown fchown "
    "lchown fchownat setxattr lsetxattr fsetxattr removexattr lremovexattr fremovexattr "
    "setpriority sched_setaffinity sched_setscheduler sched_setparam sched_setattr "
    "ioprio_set inotify_init inotify_init1 fanotify_init shmget shmat msgget semget mq_open "
    "memfd_create memfd_secret perf_event_open bpf userfaultfd io_uring_setup keyctl "
    "personality setrlimit mount unshare setns mknod mknodat sync syncfs mlock mlockall "
    "timer_create"
)
NOTABLY_DENIED = tuple(_NOTABLY_DENIED.split())


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
        lib.seccomp_attr_set.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32]
        lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
        lib.seccomp_load.argtypes = [ctypes.c_void_p]
        lib.seccomp_release.argtypes = [ctypes.c_void_p]
        return lib
    raise SeccompUnavailable("libseccomp is not installed (Debian/Ubuntu: libseccomp2)")


class _Filter:
    """A libseccomp context (default: EPERM) that collects rules, then loads them."""

    def __init__(self, lib: ctypes.CDLL):
        self.lib = lib
        self.ctx = lib.seccomp_init(_errno_action(errno.EPERM))
        if not self.ctx:
            raise SeccompUnavailable("seccomp_init failed")
        lib.seccomp_attr_set(self.ctx, _ATTR_OPTIMIZE, 2)  # older libseccomp: ignored
        self.skipped: list[str] = []
        self.rules = 0

    def add(self, action: int, name: str, *conditions: tuple[int, int, int, int]) -> None:
        number = self.lib.seccomp_syscall_resolve_name(name.encode())
        if number < 0:  # not a call on this architecture
            self.skipped.append(name)
            return
        array = (_ArgCmp * max(len(conditions), 1))(*[_ArgCmp(*c) for c in conditions])
        result = self.lib.seccomp_rule_add_array(self.ctx, action, number, len(conditions), array)
        if result < 0:
            raise SeccompUnavailable(f"rule for {name}: {os.strerror(-result)}")
        self.rules += 1

    def load(self) -> None:
        try:
            result = self.lib.seccomp_load(self.ctx)
            if result < 0:
                raise SeccompUnavailable(f"seccomp_load: {os.strerror(-result)}")
        finally:
            self.lib.seccomp_release(self.ctx)


def _add_argument_rules(rules: _Filter, me: int) -> None:
    """The calls allowed only with some arguments."""
    # glibc starts threads with clone3, whose flags live in memory seccomp cannot read:
    # answer ENOSYS so glibc falls back to clone, where the flags are an argument.
    rules.add(_errno_action(errno.ENOSYS), "clone3")
    thread_only = (0, _CMP_MASKED_EQ, CLONE_THREAD | _CLONE_NAMESPACES, CLONE_THREAD)
    rules.add(_ACT_ALLOW, "clone", thread_only)
    rules.add(_errno_action(errno.ENOSYS), "openat2")
    for name, index in _MODE_ARGUMENT.items():
        rules.add(_ACT_ALLOW, name, (index, _CMP_MASKED_EQ, _SET_ID_BITS, 0))
    for name in ("kill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo"):
        rules.add(_ACT_ALLOW, name, (0, _CMP_EQ, me, 0))  # itself only
    for pid in (0, me):  # reading its own limits is fine, changing any is not
        rules.add(_ACT_ALLOW, "prlimit64", (0, _CMP_EQ, pid, 0), (2, _CMP_EQ, 0, 0))
    for name, commands in (("ioctl", _IOCTLS), ("fcntl", _FCNTLS), ("prctl", _PRCTLS)):
        for command in commands:
            rules.add(
                _ACT_ALLOW, name, (1 if name != "prctl" else 0, _CMP_MASKED_EQ, _LOW32, command)
            )


def install() -> dict[str, object]:
    """Apply the filter to this process, for good (threads started later inherit it).

    Returns a report: how many rules, and the names this architecture does not have.
    Raises SeccompUnavailable when libseccomp or the kernel cannot do it.
    """
    lib = _load_library()
    rules = _Filter(lib)
    for name in ALLOWED:
        rules.add(_ACT_ALLOW, name)
    for name in IGNORED:
        rules.add(_errno_action(0), name)
    for name in UNSUPPORTED:
        rules.add(_errno_action(errno.ENOTSUP), name)
    _add_argument_rules(rules, os.getpid())
    rules.load()
    return {"rules": rules.rules, "unknown_on_this_arch": rules.skipped}
