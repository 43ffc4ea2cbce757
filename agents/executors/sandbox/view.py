"""What a sandbox worker under an id of its own sees of the files: exactly what it was granted.

Once the worker drops to an unprivileged id, the app's own permissions would hide some
of its grants from it: the Python installation may sit in a private home folder
(`/root`, mode 0700), the scratch folder in a private temp folder, and upload folders are
private to the app. In a private mount namespace, for each granted path:

- a folder on the way that the id cannot pass is covered by an empty read-only tmpfs in
  which only the granted paths below it are put back, so the rest of it stays out of
  sight;
- a granted path the id cannot use itself (an upload folder, mode 0700, files 0600; the
  scratch folder) is put back through an id-mapped mount that shows the app's files as
  the worker's own; a read-only grant shown that way is a read-only mount;
- anything the id can already reach is left alone;
- in a PID namespace of its own, /proc is remounted to list that namespace only.

`plan` only looks (stat calls); `build` mounts, as root, before the ids drop.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field

from agents.executors.sandbox import mounts

_R, _W, _X = 4, 2, 1


@dataclass
class View:
    """The mounts a worker's view needs.

    Args:
        covers: Folders to hide under an empty tmpfs (the grants below them come back).
        grafts: Granted path -> (shown through the id map, read-only).
        left_out: Granted paths that do not exist or cannot be put back.
    """

    covers: list[str] = field(default_factory=list)
    grafts: dict[str, tuple[bool, bool]] = field(default_factory=dict)
    left_out: list[str] = field(default_factory=list)

    @property
    def needs_mounts(self) -> bool:
        return bool(self.covers or self.grafts)

    def describe(self) -> str:
        mapped = sum(1 for through_map, _ in self.grafts.values() if through_map)
        return f"{len(self.covers)} hidden, {len(self.grafts)} put back ({mapped} id-mapped)"


def plan(read_only: list[str], read_write: list[str], uid: int, gid: int) -> View:
    """Which mounts let `uid`/`gid` reach every grant, and hide what is around them.

    Args:
        read_only: Paths the worker may read.
        read_write: Paths the worker may change (the scratch folder, /dev/null).
        uid: The worker's id.
        gid: The worker's group.
    """
    view = View()
    grants = dict.fromkeys(map(os.path.normpath, read_only), False)
    grants.update(dict.fromkeys(map(os.path.normpath, read_write), True))
    reached: list[str] = []  # grants the worker will reach, shallowest first
    for path in sorted(grants, key=lambda p: p.count("/")):
        writable = grants[path]
        try:
            info = os.stat(path)
        except OSError:
            view.left_out.append(path)
            continue
        inside = _deepest_ancestor(path, reached)
        blocked = _first_blocked(path, inside, uid, gid)
        usable = _can(info, uid, gid, _needs(info, writable))
        if blocked is None and usable:
            reached.append(path)
            continue
        if blocked is not None and blocked not in view.covers:
            view.covers.append(blocked)
        # Read-only where the id map would let the worker write (the app's files become
        # its own there); elsewhere its id already cannot, and says so (EACCES).
        view.grafts[path] = (not usable, not usable and not writable)
        reached.append(path)
    return view


def build(view: View, app_ids: tuple[int, int], worker_ids: tuple[int, int]) -> None:
    """Make `view` this process's view of the files (root only; before the ids drop).

    Raises MountError when a mount cannot be made (nothing visible changed then); a
    failure half-way ends the process.

    Args:
        view: From `plan`.
        app_ids: The app's uid and gid (whose files an id map shows as the worker's).
        worker_ids: The worker's uid and gid.
    """
    mounts.private_namespace()
    trees = _copy_grafts(view, app_ids, worker_ids)
    if os.getpid() == 1:  # a PID namespace of its own (see `pidns`): a /proc to match
        try:
            mounts.mount_proc()
        except mounts.MountError:
            pass  # the app's /proc stays in sight (Landlock still refuses it)
    try:
        _mount(view, trees)
    except OSError as error:  # half a view: the worker would be broken, so it stops
        raise SystemExit(
            f"sandbox worker: building its view of the files failed: {error}"
        ) from None


def _copy_grafts(
    view: View, app_ids: tuple[int, int], worker_ids: tuple[int, int]
) -> dict[str, int]:
    """Detached copies of every graft, taken before any cover hides its source."""
    idmap = None
    trees: dict[str, int] = {}
    try:
        if any(through_map for through_map, _ in view.grafts.values()):
            pairs = (app_ids[0], worker_ids[0]), (app_ids[1], worker_ids[1])
            idmap = mounts.idmap_namespace(*pairs)
        for path, (through_map, read_only) in view.grafts.items():
            trees[path] = mounts.clone_tree(path, read_only, idmap if through_map else None)
    except OSError as error:
        for fd in trees.values():
            os.close(fd)
        raise mounts.MountError(
            error.errno, f"{error.strerror} ({error.filename or 'mounts'})"
        ) from None
    finally:
        if idmap is not None:
            os.close(idmap)
    return trees


def _mount(view: View, trees: dict[str, int]) -> None:
    """Cover, then graft, shallowest first (a cover may sit inside a graft's folder)."""
    steps = [(p, "cover") for p in view.covers] + [(p, "graft") for p in trees]
    steps.sort(key=lambda step: (step[0].count("/"), step[1] == "graft"))
    for path, kind in steps:
        if kind == "cover":
            mounts.mount_tmpfs(path)
        else:
            _make_mount_point(path, os.path.isdir(f"/proc/self/fd/{trees[path]}"))
            mounts.attach(trees.pop(path), path)
    for path in view.covers:
        mounts.make_read_only(path)


def _make_mount_point(path: str, folder: bool) -> None:
    if os.path.lexists(path):
        return
    os.makedirs(os.path.dirname(path), mode=0o755, exist_ok=True)
    if folder:
        os.mkdir(path, 0o755)
    else:
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY | os.O_CLOEXEC, 0o644))


def _deepest_ancestor(path: str, reached: list[str]) -> str:
    """The deepest grant above `path` the worker reaches, or "/"."""
    above = [p for p in reached if path.startswith(p.rstrip("/") + "/")]
    return max(above, key=len) if above else "/"


def _first_blocked(path: str, start: str, uid: int, gid: int) -> str | None:
    """The first folder strictly between `start` and `path` that the ids cannot pass."""
    parts = path[len(start.rstrip("/")) :].strip("/").split("/")[:-1]
    current = start
    for part in parts:
        current = os.path.join(current, part)
        if not _can(os.stat(current), uid, gid, _X):
            return current
    return None


def _needs(info: os.stat_result, writable: bool) -> int:
    if stat.S_ISDIR(info.st_mode):
        return _R | _X | (_W if writable else 0)
    return _R | (_W if writable else 0)


def _can(info: os.stat_result, uid: int, gid: int, wanted: int) -> bool:
    """Whether the mode bits give `uid`/`gid` every right in `wanted` (no ACLs, no root)."""
    if info.st_uid == uid:
        bits = info.st_mode >> 6
    elif info.st_gid == gid:
        bits = info.st_mode >> 3
    else:
        bits = info.st_mode
    return bits & wanted == wanted
