"""What a forget leaves on disk so it can be finished after a crash, and audited.

A hard delete is several graph writes, cache deletions and a compaction; a
process killed half way would leave the forgotten text on disk and no record
that it was asked for. So before deleting anything, `forget.run` writes an
**intent**: the resolved uuids to delete (never names or text), fsynced and
moved into place atomically under ``<data dir>/forget_pending/``. The intent is
removed only after compaction and the audit line. A later `Memory` on the same
data directory finds the intents left behind and finishes them.

The running forget holds an exclusive ``flock`` on its intent file, so another
process opening the same directory while it runs does not take it over; the
lock dies with the process, which is what makes the intent claimable.

The audit log records a **keyed** hash (HMAC-SHA256) of a text selector: with
an unsalted hash anyone holding the log could confirm a guessed word. The key is
random per data directory (``.audit_key``, mode 0600), so only someone with the
data directory can check a claim, and the same text under two directories
hashes differently.
"""

from __future__ import annotations

import fcntl
import hashlib
import hmac
import json
import os
import secrets
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import IO

from pydantic import BaseModel, ConfigDict, ValidationError

PENDING_DIR = "forget_pending"
AUDIT_FILE = "forget_audit.jsonl"
AUDIT_KEY_FILE = ".audit_key"


class Intent(BaseModel):
    """A forget decided but maybe not done: everything needed to redo it, no text."""

    model_config = ConfigDict(frozen=True)

    id: str
    store: str
    user_id: str
    selector: str
    audit_value: object = None
    created_at: datetime
    facts: tuple[str, ...] = ()
    episodes: tuple[str, ...] = ()
    reopen: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()
    drop_graph: bool = False
    cache_dir: str | None = None
    cache_keys: tuple[str, ...] = ()


class PendingForget(BaseModel):
    """An unfinished forget as `Memory.pending_forgets` reports it."""

    model_config = ConfigDict(frozen=True)

    id: str
    user_id: str
    selector: str
    created_at: datetime


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _private_dir(directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    return directory


@contextmanager
def recorded(data_dir: Path, intent: Intent) -> Iterator[Path]:
    """Write the intent durably and hold its lock; remove it when the block succeeds.

    On an exception the intent stays, so the next open finishes the job.
    """
    directory = _private_dir(data_dir / PENDING_DIR)
    path = directory / f"{intent.id}.json"
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=".json")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        handle.write(intent.model_dump_json())
        handle.flush()
        os.fsync(handle.fileno())
        os.replace(tmp, path)
        _fsync_dir(directory)
        yield path
        path.unlink(missing_ok=True)
        _fsync_dir(directory)


def _read(path: Path) -> Intent | None:
    try:
        return Intent.model_validate_json(path.read_bytes())
    except (OSError, ValidationError):
        return None


def pending(data_dir: Path, store: str) -> list[Intent]:
    """Unfinished intents for this store, oldest first (running or abandoned)."""
    directory = data_dir / PENDING_DIR
    if not directory.is_dir():
        return []
    found = [_read(p) for p in directory.glob("*.json") if not p.name.startswith(".tmp-")]
    return sorted((i for i in found if i is not None and i.store == store), key=lambda i: i.created_at)


@contextmanager
def claimed(data_dir: Path, intent: Intent) -> Iterator[IO | None]:
    """Lock an abandoned intent for finishing; yields None if a live process holds it.

    Removes the intent when the block succeeds.
    """
    path = data_dir / PENDING_DIR / f"{intent.id}.json"
    try:
        handle = open(path, "rb")
    except FileNotFoundError:
        yield None
        return
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield None
            return
        if not path.exists():
            yield None
            return
        yield handle
        path.unlink(missing_ok=True)
        _fsync_dir(path.parent)


def remove_stale_temps(data_dir: Path) -> None:
    """Half-written intents from a crash before the rename hold nothing decided."""
    for path in (data_dir / PENDING_DIR).glob(".tmp-*.json"):
        with open(path, "rb") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                continue
            path.unlink(missing_ok=True)


def audit_key(data_dir: Path) -> bytes:
    """The per-data-dir HMAC key, created on first use with mode 0600."""
    path = _private_dir(data_dir) / AUDIT_KEY_FILE
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return bytes.fromhex(path.read_text().strip())
    key = secrets.token_bytes(32)
    with os.fdopen(fd, "w") as handle:
        handle.write(key.hex())
        handle.flush()
        os.fsync(handle.fileno())
    return key


def keyed_hash(data_dir: Path, text: str) -> str:
    """HMAC-SHA256 of a selector text under this data directory's audit key."""
    digest = hmac.new(audit_key(data_dir), text.encode("utf-8"), hashlib.sha256).hexdigest()
    return "hmac-sha256:" + digest


def audited(data_dir: Path, intent_id: str) -> bool:
    path = data_dir / AUDIT_FILE
    if not path.exists():
        return False
    needle = f'"id": "{intent_id}"'
    return any(needle in line for line in path.read_text(encoding="utf-8").splitlines())


def append_audit(data_dir: Path, line: dict) -> None:
    """Append one audit line, fsynced; once per intent even when a crash repeats it."""
    if audited(data_dir, line["id"]):
        return
    _private_dir(data_dir)
    with open(data_dir / AUDIT_FILE, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(line) + "\n")
        handle.flush()
        os.fsync(handle.fileno())
