"""A real PostgreSQL server for tests and benchmarks: a throwaway cluster on a loopback port.

Uses Debian's `postgresql` package (installed by `scripts/install.sh --tests`). PostgreSQL
refuses to run as root, so as root the cluster is created and run as the `postgres` user.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path


def postgres_bin() -> Path | None:
    """The folder holding initdb and pg_ctl, or None when PostgreSQL is not installed."""
    found = shutil.which("initdb")
    if found:
        return Path(os.path.realpath(found)).parent
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return Path(candidates[-1]).parent if candidates else None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class PostgresServer:
    """Starts `initdb` + `postgres` in a temp folder; `url(name)` gives a SQLAlchemy URL."""

    def __init__(self) -> None:
        self.bin = postgres_bin()
        if self.bin is None:
            raise FileNotFoundError("PostgreSQL is not installed: apt-get install postgresql")
        self.port = _free_port()
        self.folder = Path(tempfile.mkdtemp(prefix="smolui-pg-"))
        self._as_postgres = os.geteuid() == 0
        self._databases = 0

    def _run(self, *args: str) -> None:
        command = [str(self.bin / args[0]), *args[1:]]
        if self._as_postgres:
            command = ["runuser", "-u", "postgres", "--", *command]
        subprocess.run(command, check=True, capture_output=True, timeout=120)

    def start(self) -> PostgresServer:
        if self._as_postgres:
            user = pwd.getpwnam("postgres")
            os.chown(self.folder, user.pw_uid, user.pw_gid)
        data = self.folder / "data"
        self._run("initdb", "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8",
                  "--no-sync")  # fmt: skip
        options = (f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 "
                   "-c fsync=off -c synchronous_commit=off -c full_page_writes=off")  # fmt: skip
        self._run("pg_ctl", "-D", str(data), "-l", str(self.folder / "log"), "-w", "-t", "60",
                  "-o", options, "start")  # fmt: skip
        return self

    def create_database(self) -> str:
        """A new empty database; returns its SQLAlchemy URL."""
        import psycopg

        self._databases += 1
        name = f"test_{self._databases}"
        with psycopg.connect(self._dsn("postgres"), autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        return f"postgresql+psycopg://postgres:secret@127.0.0.1:{self.port}/{name}"

    def _dsn(self, database: str) -> str:
        return f"host=127.0.0.1 port={self.port} user=postgres dbname={database}"

    def stop(self) -> None:
        try:
            self._run("pg_ctl", "-D", str(self.folder / "data"), "-m", "immediate", "stop")
        except subprocess.CalledProcessError:
            pass
        shutil.rmtree(self.folder, ignore_errors=True)
