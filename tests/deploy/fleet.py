"""A fleet on loopback, without containers: app replicas (`python app.py`) on one PostgreSQL,
with HAProxy in front running the same `deploy/haproxy.cfg` as `deploy/compose.yaml`.

Each replica is its own process so a test can `kill -9` it. HAProxy's stats page (CSV) tells
the test when a replica is in or out of rotation, so tests wait on that, not on time.

Shared with the compose fleet (tests/deploy/compose_fleet.py): `haproxy_status`, the `/v1`
`Client` that keeps HAProxy's cookie, and readers of what a conversation stored.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tests.waiting import wait_for

ROOT = Path(__file__).resolve().parents[2]
HAPROXY_CFG = ROOT / "deploy" / "haproxy.cfg"
COOKIE = "SMOLUI_REPLICA"  # as deploy/haproxy.cfg names it
START_S = 180.0  # an app start on a busy 2-core machine (gradio, the store's migrations)


# A scripted model's replies, replayed in order by each conversation's agent (the replica
# builds one per conversation, so each starts at the first): a quick answer, then one that
# holds its turn open for an hour (a test kills the replica while it runs).
ANSWER = "Noted."
QUICK = f"Thought: I answer at once.\n<code>\nfinal_answer('{ANSWER}')\n</code>"
HELD = {"content": "<code>\nfinal_answer('Too late.')\n</code>", "delay": 3600}


def write_script(path: Path, replies: Sequence[str | dict] = (QUICK, HELD)) -> Path:
    """Write the replicas' scripted replies (by default QUICK, HELD), replayed again and
    again, to `path`."""
    path.write_text(json.dumps({"replies": list(replies), "loop": True}), encoding="utf-8")
    return path


def free_port() -> int:
    """A TCP port free on loopback right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def missing_haproxy() -> str | None:
    """Why HAProxy cannot run here (a message for `pytest.skip`), or None."""
    if shutil.which("haproxy") is None and not Path("/usr/sbin/haproxy").exists():
        return "haproxy is not installed: bash scripts/install.sh --tests"
    return None


def _haproxy() -> str:
    return shutil.which("haproxy") or "/usr/sbin/haproxy"


def haproxy_status(stats_csv_url: str) -> dict[str, str]:
    """Each replica's state on HAProxy's stats page ("UP", "DOWN", ...; {} if unreachable).

    Args:
        stats_csv_url: The stats page's CSV, e.g. "http://127.0.0.1:8404/stats;csv".
    """
    try:
        with urllib.request.urlopen(stats_csv_url, timeout=10) as answer:
            text = answer.read().decode("utf-8")
    except OSError:
        return {}
    rows = csv.DictReader(io.StringIO(text.lstrip("# ")))
    return {row["svname"]: row["status"] for row in rows if row["pxname"] == "replicas"}


@dataclass
class Replica:
    """One app process: `python app.py` with its flags, restartable on the same port.

    Args:
        name: Its server name in `deploy/haproxy.cfg` ("a" or "b"), also its cookie value.
        port: Its loopback port.
        flags: `app.py`'s flags besides the address.
        log: Where its output goes (read when a test fails).
    """

    name: str
    port: int
    flags: Sequence[str]
    log: Path
    process: subprocess.Popen | None = field(default=None, repr=False)

    def start(self) -> None:
        command = [sys.executable, "app.py", "--host", "127.0.0.1", "--port", str(self.port),
                   *self.flags]  # fmt: skip
        # Behind deploy/haproxy.cfg, which adds X-Forwarded-For: declared as deploy/compose.yaml
        # does, so a key-less caller on this machine is still told apart from the internet.
        env = {**os.environ, "GRADIO_ANALYTICS_ENABLED": "False", "HF_HUB_OFFLINE": "1",
               "SMOLUI_TRUST_PROXY": "true"}  # fmt: skip
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=out)

    def kill(self) -> None:
        """`kill -9`, as a crash or an OOM kill would end it."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=30)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"


class Fleet:
    """Two replicas and HAProxy; `url` is the balancer's.

    Args:
        folder: Where logs and the shared data folder go.
        database_url: The PostgreSQL both replicas use.
        model: The model spec both replicas run (`--model`).
    """

    def __init__(self, folder: Path, database_url: str, model: str):
        data = folder / "data"  # shared, as the compose file's volume: uploads live there
        data.mkdir(parents=True, exist_ok=True)
        flags = ["--model", model, "--executor", "local", "--data-dir", str(data),
                 "--database-url", database_url, "--no-find-local-servers"]  # fmt: skip
        self.replicas = {name: Replica(name, free_port(), flags, folder / f"app-{name}.log")
                         for name in ("a", "b")}  # fmt: skip
        self.port, self.stats_port = free_port(), free_port()
        self.folder, self.database_url = folder, database_url
        self.haproxy: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> Fleet:
        for replica in self.replicas.values():
            replica.start()
        env = {**os.environ, "SMOLUI_LISTEN": f"127.0.0.1:{self.port}",
               "SMOLUI_REPLICA_A": self.replicas["a"].address,
               "SMOLUI_REPLICA_B": self.replicas["b"].address,
               "SMOLUI_STATS": f"127.0.0.1:{self.stats_port}"}  # fmt: skip
        with (self.folder / "haproxy.log").open("ab") as out:
            self.haproxy = subprocess.Popen([_haproxy(), "-db", "-f", str(HAPROXY_CFG)],
                                            env=env, stdout=out, stderr=out)  # fmt: skip
        for name in self.replicas:
            self.wait_status(name, "UP", START_S)
        return self

    def status(self) -> dict[str, str]:
        """Each replica's state as HAProxy sees it ("UP", "DOWN", ...; {} if unreachable)."""
        return haproxy_status(f"http://127.0.0.1:{self.stats_port}/stats;csv")

    def wait_status(self, name: str, state: str, timeout: float = 60.0) -> None:
        """Wait until HAProxy reports replica `name` in `state` (its checks of /readyz)."""
        wait_for(lambda: self.status().get(name, "").startswith(state),
                 f"HAProxy never saw replica {name} {state}: {self.status()} "
                 f"(logs in {self.folder})", timeout=timeout)  # fmt: skip

    def stop(self) -> None:
        """End every process this fleet started (by its pid)."""
        for replica in self.replicas.values():
            replica.kill()
        if self.haproxy is not None and self.haproxy.poll() is None:
            self.haproxy.terminate()
            self.haproxy.wait(timeout=30)


class Client:
    """The `openai` client on the balancer, keeping HAProxy's cookie between calls.

    Args:
        url: The balancer's address.
        api_key: A key made with `python -m smolui.auth.keys add USER` (loopback callers of
            an app without keys may send anything).
    """

    def __init__(self, url: str, api_key: str = "unused"):
        import httpx
        from openai import OpenAI

        self.http = httpx.Client(timeout=120)
        self.openai = OpenAI(base_url=f"{url}/v1", api_key=api_key, http_client=self.http,
                             max_retries=0)  # fmt: skip

    @property
    def replica(self) -> str | None:
        """The replica HAProxy's cookie sticks this client to."""
        return self.http.cookies.get(COOKIE)

    def say(self, text: str, conversation_id: str | None = None) -> tuple[str, str]:
        """One whole turn: (answer, conversation id)."""
        extra = {"conversation_id": conversation_id} if conversation_id else None
        reply = self.openai.chat.completions.create(
            model="smolui", messages=[{"role": "user", "content": text}], extra_body=extra
        )
        return reply.choices[0].message.content, reply.model_extra["conversation_id"]

    def stream(
        self,
        text: str,
        conversation_id: str | None,
        errors: list[Exception],
        said: list[str] | None = None,
    ) -> None:
        """A streamed turn read to its end; what broke it goes into `errors`, and what it
        said into `said` (to tell why a turn ended that should still run)."""
        extra = {"conversation_id": conversation_id} if conversation_id else None
        try:
            chunks = self.openai.chat.completions.create(
                model="smolui", messages=[{"role": "user", "content": text}], stream=True,
                extra_body=extra,
            )  # fmt: skip
            for chunk in chunks:
                if said is not None and chunk.choices:
                    said.append(chunk.choices[0].delta.content or "")
        except Exception as error:  # the replica died under it: the point of the test
            errors.append(error)


def users_said(store, owner: str, conversation_id: str) -> list[str]:
    """The user's messages the store keeps for the conversation, in order."""
    record = store.get(owner, conversation_id)
    return [m["content"] for m in record.messages
            if m.get("role") == "user" and isinstance(m.get("content"), str)]  # fmt: skip


def answers(store, owner: str, conversation_id: str, text: str) -> list[str]:
    """The assistant's messages that say `text` in the stored conversation."""
    record = store.get(owner, conversation_id)
    return [m["content"] for m in record.messages
            if m.get("role") == "assistant" and m.get("content") == text]  # fmt: skip
