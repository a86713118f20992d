"""A real PostgreSQL server for the tests: its own data directory in a temporary folder, on a
free port of 127.0.0.1, started once per test run and stopped at the end.

The server binaries are found on PATH, through `pg_config --bindir`, or in Debian's
/usr/lib/postgresql/<version>/bin. PostgreSQL refuses to run as root: as root the server runs
as the `postgres` user (Debian's package creates it) or `nobody`. Without a server the tests
that need one are skipped, saying why, unless TABLEBOT_REQUIRE_POSTGRES=1 (CI sets it): then
they fail."""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from pathlib import Path

import asyncpg
import pytest

REQUIRE = os.environ.get("TABLEBOT_REQUIRE_POSTGRES") == "1"
DATABASE = "tablebot_tests"


NEEDED = ("initdb", "pg_ctl", "createdb")


def _complete(bindir: Path) -> bool:
    return all((bindir / name).exists() for name in NEEDED)


def find_bindir() -> Path | None:
    """Where initdb, pg_ctl and createdb are (with the server beside them), or None."""
    candidates: list[Path] = []
    found = shutil.which("pg_ctl")
    if found:
        candidates.append(Path(found).resolve().parent)
    if shutil.which("pg_config"):
        out = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True)
        if out.returncode == 0:
            candidates.append(Path(out.stdout.strip()))
    versions = sorted(
        glob.glob("/usr/lib/postgresql/*/bin"),
        key=lambda p: int(Path(p).parts[-2]) if Path(p).parts[-2].isdigit() else 0,
        reverse=True,
    )
    candidates += [Path(v) for v in versions]
    return next((c for c in candidates if _complete(c)), None)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def unavailable(reason: str) -> None:
    """Skip the test, or fail it when CI requires PostgreSQL."""
    message = f"PostgreSQL is not available: {reason}"
    if REQUIRE:
        pytest.fail(message + " (TABLEBOT_REQUIRE_POSTGRES=1)", pytrace=False)
    pytest.skip(message + " (install Debian's postgresql package to run these tests)")


class PostgresServer:
    """initdb + pg_ctl start in a temporary folder; `stop()` stops it and removes the folder."""

    def __init__(self, bindir: Path) -> None:
        self.bindir = bindir
        self.root = Path(tempfile.mkdtemp(prefix="tablebot-pg-"))
        self.data = self.root / "data"
        self.port = _free_port()
        self.user: pwd.struct_passwd | None = None
        if os.geteuid() == 0:
            for name in ("postgres", "nobody"):
                try:
                    self.user = pwd.getpwnam(name)
                    break
                except KeyError:
                    continue
            if self.user is None:
                raise RuntimeError("running as root and no postgres or nobody user to run as")
            os.chown(self.root, self.user.pw_uid, self.user.pw_gid)

    def _run(self, *args: str) -> None:
        kw: dict[str, object] = {}
        if self.user is not None:
            kw = {"user": self.user.pw_uid, "group": self.user.pw_gid, "extra_groups": []}
        out = subprocess.run(
            [str(self.bindir / args[0]), *args[1:]],
            capture_output=True,
            text=True,
            cwd=self.root,
            timeout=120,
            **kw,  # type: ignore[arg-type]
        )
        if out.returncode != 0:
            raise RuntimeError(f"{args[0]} failed: {out.stdout}{out.stderr}")

    def start(self, *, durable: bool = False) -> None:
        """`durable`: PostgreSQL's own defaults (fsync, synchronous commits), as in
        production; otherwise the tests' quicker settings (nothing here must survive a crash
        of the server itself)."""
        self._run(
            "initdb", "-D", str(self.data), "-U", "tablebot", "--auth=trust", "-E", "UTF8",
            "--no-sync", "--no-instructions",
        )  # fmt: skip
        options = f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.root}"
        options += " -c max_connections=300"
        if not durable:
            options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        self._run(
            "pg_ctl", "-D", str(self.data), "-l", str(self.root / "server.log"), "-o", options,
            "-w", "-t", "60", "start",
        )  # fmt: skip

    def stop(self) -> None:
        try:
            if (self.data / "postmaster.pid").exists():
                self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)

    def url(self, database: str = "postgres", search_path: str | None = None) -> str:
        url = f"postgresql://tablebot@127.0.0.1:{self.port}/{database}"
        return url if search_path is None else f"{url}?search_path={search_path}"


async def fresh_schema(server: PostgresServer) -> tuple[str, str]:
    """A new empty schema in the tests' database: (its name, a URL whose tables live there)."""
    name = "t_" + uuid.uuid4().hex[:12]
    conn = await asyncpg.connect(server.url(DATABASE))
    try:
        await conn.execute(f"CREATE SCHEMA {name}")
    finally:
        await conn.close()
    return name, server.url(DATABASE, search_path=name)


async def drop_schema(server: PostgresServer, name: str) -> None:
    conn = await asyncpg.connect(server.url(DATABASE))
    try:
        await conn.execute(f"DROP SCHEMA IF EXISTS {name} CASCADE")
    finally:
        await conn.close()


def create_database(server: PostgresServer, name: str = DATABASE) -> None:
    """A new database (synchronous: called once, from a session fixture or a benchmark)."""
    server._run("createdb", "-h", "127.0.0.1", "-p", str(server.port), "-U", "tablebot", name)
