"""Remote (Jupyter gateway) executor figures next to the local sandbox's: kernel start time,
per-execution overhead, and a tool call's round trip, through a real Kernel Gateway on loopback,
and (where podman is installed, as root) through the Docker executor's container.

    python bench/remote_executor.py [--starts 3] [--runs 200] [--no-docker]

Goal (issue 17): overhead < 5 ms per execution on loopback. "Overhead" is the wall time of
running `pass` (nothing to do), so it is all transport: websocket frames, the kernel's
message handling, and this side's bookkeeping. Times are medians (p90 in brackets). Three
processes take part (this one, the gateway, the kernel), so on a busy machine the wall time
mostly measures waiting for a CPU: the CPU each one spends per execution is printed too.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.executors.remote import JupyterExecutor  # noqa: E402
from agents.executors.remote.gateway import GatewayKernel  # noqa: E402
from agents.executors.sandbox import SandboxExecutor  # noqa: E402
from tests.kernel_gateway import KernelGateway  # noqa: E402
from tools import tool  # noqa: E402


@tool
def echo(text: str) -> str:
    """Returns its argument.

    Args:
        text: Anything.
    """
    return text


def timed(action: Callable[[], Any], runs: int) -> list[float]:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def summary(samples: list[float]) -> str:
    ordered = sorted(samples)
    p90 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.9))]
    return f"{statistics.median(samples):8.2f} ms  (p90 {p90:.2f})"


def start_times(make: Callable[[], Any], starts: int) -> list[float]:
    samples = []
    for _ in range(starts):
        executor = make()
        begin = time.perf_counter()
        executor.start()
        samples.append((time.perf_counter() - begin) * 1000)
        executor.close()
    return samples


def measure(name: str, make: Callable[[], Any], starts: int, runs: int) -> dict[str, list[float]]:
    figures = {"start": start_times(make, starts)}  # for docker: container + gateway + kernel
    executor = make()
    try:
        executor.send_tools({"echo": echo})
        executor("x = 1")
        figures["pass"] = timed(lambda: executor("pass"), runs)
        figures["expression"] = timed(lambda: executor("x + 1"), runs)
        figures["tool call"] = timed(lambda: executor("echo('hi')"), max(10, runs // 4))
    finally:
        executor.close()
    print(f"\n{name}")
    for key, samples in figures.items():
        print(f"  {key:<12}{summary(samples)}   n={len(samples)}")
    return figures


def process_cpu_s(pid: int) -> float:
    """CPU seconds (user + system) a process has used, from /proc (Linux)."""
    with open(f"/proc/{pid}/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_per_execution(gateway: KernelGateway, runs: int) -> None:
    """Where the CPU of one execution goes: this process, the gateway, the kernel. Unlike wall
    time this barely depends on how busy the machine is; on an idle machine the wall time
    approaches its sum."""
    executor = JupyterExecutor(gateway.url, gateway.token, additional_authorized_imports=["os"])
    try:
        executor.send_tools({})
        kernel_pid = int(executor("import os\nos.getpid()").output)
        pids = {"client": os.getpid(), "gateway": gateway.pid, "kernel": kernel_pid}
        before = {name: process_cpu_s(pid) for name, pid in pids.items()}
        for _ in range(runs):
            executor("pass")
        used = {
            name: (process_cpu_s(pid) - before[name]) * 1000 / runs for name, pid in pids.items()
        }
    finally:
        executor.close()
    parts = ", ".join(f"{name} {ms:.2f}" for name, ms in used.items())
    print(f"  CPU per execution of `pass`: {parts} ms (sum {sum(used.values()):.2f} ms)")
    print(f"  websocket framing: {framing(gateway)}")


def framing(gateway: KernelGateway) -> str:
    """Which kernel websocket framing the gateway agreed on (see agents/executors/remote/wire.py)."""
    kernel = GatewayKernel(gateway.url, gateway.token)
    try:
        kernel.start()
        return kernel.subprotocol or "legacy JSON text frames"
    finally:
        kernel.shutdown()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=3)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--no-docker", action="store_true", help="skip the Docker executor")
    args = parser.parse_args()
    gateway = KernelGateway().start()
    try:
        remote = measure(
            f"jupyter kernel via Kernel Gateway on {gateway.url}",
            lambda: JupyterExecutor(gateway.url, gateway.token, timeout=30),
            args.starts, args.runs,
        )  # fmt: skip
        if sys.platform.startswith("linux"):
            cpu_per_execution(gateway, args.runs)
    finally:
        gateway.stop()
    local = measure(
        "local sandbox (SandboxExecutor)",
        lambda: SandboxExecutor(timeout=30, spare_worker=False),
        args.starts, args.runs,
    )  # fmt: skip
    overhead = statistics.median(remote["pass"])
    extra = overhead - statistics.median(local["pass"])
    print(
        f"\nremote per-execution overhead: {overhead:.2f} ms ({extra:+.2f} ms vs the sandbox); "
        f"goal < 5 ms: {'met' if overhead < 5 else 'NOT met'}"
    )
    if not args.no_docker:
        docker = measure_docker(args.starts, args.runs)
        if docker is not None:
            in_container = statistics.median(docker["pass"])
            print(
                f"docker per-execution overhead: {in_container:.2f} ms "
                f"({in_container - overhead:+.2f} ms vs the gateway on loopback)"
            )


def measure_docker(starts: int, runs: int) -> dict[str, list[float]] | None:
    """The Docker executor against podman's Docker API (its image built once, then cached)."""
    from agents.executors.remote.docker import DockerExecutor
    from tests.containers import BASE_IMAGE, PodmanService, ensure_base_image, missing_engine

    reason = missing_engine()
    if reason:
        print(f"\ndocker: skipped ({reason})")
        return None
    ensure_base_image()
    service = PodmanService().start()
    cert = "/etc/ssl/certs/ca-certificates.crt"

    def make() -> DockerExecutor:
        return DockerExecutor(
            base_image=BASE_IMAGE, pip_cert=cert if os.path.isfile(cert) else None,
            docker_host=service.url, timeout=30,
        )  # fmt: skip

    try:
        prepared = make()  # builds the kernel image if missing: not part of the start times
        prepared.start()
        prepared.close()
        return measure("docker container (DockerExecutor, podman, no network)", make, starts, runs)
    finally:
        service.stop()


if __name__ == "__main__":
    main()
