"""Why the database could not be opened, in words: the PostgreSQL server's host:port (never
the password) or the SQLite file, and what is wrong with it, instead of a traceback or a
misleading "cannot reach Discord". Errors that are not about opening it are left alone."""

from __future__ import annotations

import os
import re
import socket
import sqlite3
from pathlib import Path
from urllib.parse import unquote, urlsplit

#: SQLite's words for a file it cannot use (anything else is a bug worth its traceback).
_SQLITE_OPEN_PROBLEMS = (
    "unable to open database file",
    "file is not a database",
    "attempt to write a readonly database",
    "database disk image is malformed",
    "disk i/o error",
    "database is locked",
)


class DatabaseUnavailable(Exception):
    """The configured database cannot be used: `subject` says which ("cannot reach
    PostgreSQL at db:5432"), `reason` why ("connection refused; ...")."""

    def __init__(self, subject: str, reason: str) -> None:
        super().__init__(f"{subject}: {reason}")
        self.subject = subject
        self.reason = reason

    def naming(self, source: str) -> str:
        """The message with where the database was configured: "... (database in x.toml): ..."."""
        return f"{self.subject} ({source}): {self.reason}"


def unavailable(database: Path | str, exc: BaseException) -> DatabaseUnavailable | None:
    """`exc`, raised while opening `database`, in words; None when it is not about that."""
    text = str(database)
    if text.startswith(("postgresql://", "postgres://")):
        return _postgres(text, exc)
    return _sqlite(Path(text), exc)


def postgres_address(url: str) -> str:
    """host:port of a PostgreSQL URL, without user or password (5432 when none is given)."""
    hosts = urlsplit(url).netloc.rpartition("@")[2] or "localhost"
    return hosts if re.search(r":\d+$", hosts) else f"{hosts}:5432"


def _postgres(url: str, exc: BaseException) -> DatabaseUnavailable | None:
    import asyncpg  # only a bot on PostgreSQL needs it loaded

    at = f"PostgreSQL at {postgres_address(url)}"
    parts = urlsplit(url)
    user = unquote(parts.username or "") or "(none given)"
    reason: str | None
    if isinstance(exc, asyncpg.InvalidPasswordError):
        subject, reason = f"{at} refused the login", f"wrong password for user {user!r}"
    elif isinstance(exc, asyncpg.InvalidAuthorizationSpecificationError):
        subject, reason = f"{at} refused the login", str(exc)
    elif isinstance(exc, asyncpg.InvalidCatalogNameError):
        subject, reason = f"cannot use {at}", str(exc)
    elif isinstance(exc, asyncpg.InsufficientPrivilegeError):
        subject, reason = f"cannot use {at}", f"{exc} (user {user!r} needs to own the database)"
    elif isinstance(exc, (asyncpg.CannotConnectNowError, asyncpg.TooManyConnectionsError)):
        subject, reason = f"{at} is not taking connections", str(exc)
    elif isinstance(exc, socket.gaierror):
        subject, reason = f"cannot reach {at}", f"unknown host ({exc.strerror})"
    elif isinstance(exc, ConnectionRefusedError):
        subject, reason = f"cannot reach {at}", "connection refused; is the server running there?"
    elif isinstance(exc, TimeoutError):
        subject, reason = f"cannot reach {at}", "no answer (timed out)"
    elif isinstance(exc, (OSError, asyncpg.ConnectionDoesNotExistError)):
        subject, reason = f"cannot reach {at}", getattr(exc, "strerror", None) or str(exc)
    else:
        return None
    if parts.password:  # a server's message never holds it; said once more, to be sure
        reason = reason.replace(parts.password, "***").replace(unquote(parts.password), "***")
    return DatabaseUnavailable(subject, reason)


def _sqlite(path: Path, exc: BaseException) -> DatabaseUnavailable | None:
    subject = f"cannot open the SQLite database {path}"
    if isinstance(exc, (FileExistsError, NotADirectoryError)):  # its folder could not be made
        return DatabaseUnavailable(subject, f"a file is in the way of its folder {path.parent}")
    if isinstance(exc, OSError):
        return DatabaseUnavailable(
            subject, f"cannot create its folder {path.parent} ({exc.strerror})"
        )
    message = str(exc).lower()
    if not isinstance(exc, sqlite3.Error) or not message.startswith(_SQLITE_OPEN_PROBLEMS):
        return None
    folder = path.parent
    if path.is_dir():
        reason = "that is a folder, not a file"
    elif "not a database" in message or "malformed" in message:
        reason = "that file is not a SQLite database (or is damaged)"
    elif "locked" in message:
        reason = "another process keeps it locked (is the bot already running?)"
    elif path.exists() and not os.access(path, os.R_OK | os.W_OK):
        reason = "no permission to read and write that file"
    elif not os.access(folder, os.W_OK | os.X_OK):
        reason = f"no permission to create files in the folder {folder}"
    else:
        reason = str(exc)
    return DatabaseUnavailable(subject, reason)
