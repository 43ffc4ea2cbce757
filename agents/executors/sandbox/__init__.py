"""The sandbox executor: Python runs in a confined worker process, tools run in the host.

Host side: `executor` (`SandboxExecutor`, the `CodeExecutor`), `slot` (its one worker:
started, given the executor's state, replaced, asked), `execution` (one run of
code: tool calls, deadline, Stop), `watch` (disk and thread limits; `held`: deleted
files the worker keeps), `budget` and `results` (what may come back, and how), `process`
and `spawn` (starting, watching and killing workers; `pidns` starts each in a PID
namespace of its own; `template` forks them from one process that imported the data stack
once, `template_loop` is that process), `environment` (what a worker may read and its variables),
`cleanup` (the scratch folder). Worker side:
`worker` (the request loop), `marks` (what changed in the interpreter), `confine`
(applies every isolation layer: `landlock`, `seccomp`, `namespaces`, `identity` with
`view` and `mounts`, and the others it imports). Both sides: `channel` (framed messages
on the pipes), `live` (what the code prints, shown while it runs, throttled); values cross
as `agents.executors.values` encodes them.
"""

from agents.executors.sandbox.executor import SandboxExecutor

__all__ = ["SandboxExecutor"]
